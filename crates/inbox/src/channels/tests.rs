use std::collections::HashMap;

use serde_json::Value;

use super::*;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

struct FakeLinks;

impl Links for FakeLinks {
    fn links(&self, id: &str, option_ids: &[&str]) -> Option<QuestionLinks> {
        Some(QuestionLinks {
            link: format!("https://inbox.example/l/cap-{id}"),
            choices: option_ids
                .iter()
                .map(|option_id| format!("https://inbox.example/l/cap-{id}/choose/{option_id}/sig"))
                .collect(),
        })
    }
}

fn listed(document: &str) -> String {
    format!(
        r#"{{"inboxId":"ab12cd34","source":{{"name":"claude"}},"askedAt":"2026-11-28T04:00:00.000Z","document":{document}}}"#
    )
}

fn prompt_of(input: &str) -> String {
    let prompt = ask_user_core::input::parse(input.as_bytes()).unwrap();
    ask_user_core::document_line(&ask_user_core::prompt::PromptDocument::new(&prompt))
}

pub(super) fn question(input: &str) -> Question {
    read_question(&listed(&prompt_of(input)), &FakeLinks).unwrap()
}

#[test]
fn specs_are_kind_equals_url() {
    assert_eq!(
        Spec::parse("ntfy=https://ntfy.sh/t").unwrap(),
        Spec {
            kind: Kind::Ntfy,
            target: "https://ntfy.sh/t".into()
        }
    );
    assert!(Spec::parse("ntfy").unwrap_err().contains("KIND=URL"));
    assert!(Spec::parse("pager=x").unwrap_err().contains("unknown kind"));
    assert!(Spec::parse("slack=").unwrap_err().contains("needs a URL"));
}

#[test]
fn plain_http_past_loopback_and_missing_secrets_are_refused() {
    let none = env_of(&[]);
    let resolve_one = |spec: &str, env: &dyn Fn(&str) -> Option<String>| {
        resolve(&[Spec::parse(spec).unwrap()], env)
    };
    let err = resolve_one("ntfy=http://ntfy.example/t", &none).unwrap_err();
    assert!(
        err.starts_with("--notify-to ntfy=…:") && err.contains("plain http://"),
        "{err}"
    );
    let err = resolve_one("webhook=http://10.1.2.3/hook", &none).unwrap_err();
    assert!(err.contains("plain http://"), "{err}");
    let err = resolve_one("webhook=https://hooks.example/x", &none).unwrap_err();
    assert!(err.contains("ASK_USER_WEBHOOK_SECRET"), "{err}");
    let short = env_of(&[("ASK_USER_WEBHOOK_SECRET", "short")]);
    assert!(
        resolve_one("webhook=https://h/x", &short)
            .unwrap_err()
            .contains("shorter")
    );
    let err = resolve_one("slack=https://hooks.slack.com/services/T/B/X", &none).unwrap_err();
    assert!(
        err.contains("ASK_USER_SLACK_WEBHOOK") && !err.contains("services/T"),
        "{err}"
    );
    assert!(
        resolve_one("slack=env", &none)
            .unwrap_err()
            .contains("needs ASK_USER_SLACK_WEBHOOK")
    );
    // The URL from the variable is checked too, and not repeated in the error.
    let plain = env_of(&[(
        "ASK_USER_SLACK_WEBHOOK",
        "http://hooks.example/services/SECRET",
    )]);
    let err = resolve_one("slack=env", &plain).unwrap_err();
    assert!(
        err.contains("plain http://") && !err.contains("SECRET"),
        "{err}"
    );
    assert!(
        resolve_one("ntfy=https://ntfy.sh/", &none)
            .unwrap_err()
            .contains("no topic")
    );
    // Loopback http is fine for each kind.
    let keyed = env_of(&[
        ("ASK_USER_WEBHOOK_SECRET", "0123456789abcdef0123"),
        ("ASK_USER_SLACK_WEBHOOK", "http://127.0.0.1:9/services/x"),
    ]);
    let channels = resolve(
        &[
            Spec::parse("ntfy=http://127.0.0.1:9/topic").unwrap(),
            Spec::parse("webhook=http://[::1]:9/hook").unwrap(),
            Spec::parse("slack=env").unwrap(),
            Spec::parse("email=smtp://127.0.0.1:2525/?to=a@example.com").unwrap(),
        ],
        &keyed,
    )
    .unwrap();
    let kinds: Vec<&str> = channels.iter().map(|c| c.kind().as_str()).collect();
    assert_eq!(kinds, ["ntfy", "webhook", "slack", "email"]);
}

#[cfg(unix)]
#[test]
fn a_secret_file_must_be_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret");
    std::fs::write(&path, "from-a-file\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let shown = path.display().to_string();
    let env = env_of(&[("ASK_USER_NTFY_TOKEN_FILE", &shown)]);
    let err = secret(&env, "ASK_USER_NTFY_TOKEN").unwrap_err();
    assert!(
        err.contains("readable by others") && err.contains("chmod 600"),
        "{err}"
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        secret(&env, "ASK_USER_NTFY_TOKEN").unwrap().as_deref(),
        Some("from-a-file")
    );
    // The variable itself wins.
    let both = env_of(&[
        ("ASK_USER_NTFY_TOKEN", "direct"),
        ("ASK_USER_NTFY_TOKEN_FILE", &shown),
    ]);
    assert_eq!(
        secret(&both, "ASK_USER_NTFY_TOKEN").unwrap().as_deref(),
        Some("direct")
    );
    assert_eq!(secret(&env_of(&[]), "ASK_USER_NTFY_TOKEN").unwrap(), None);
}

#[test]
fn a_question_is_read_with_its_link_and_its_buttons() {
    let q = question(r#"{"question":"Deploy?","options":["staging","prod","both"]}"#);
    assert_eq!(q.inbox_id, "ab12cd34");
    assert_eq!(q.asker.as_deref(), Some("claude"));
    assert_eq!(
        q.link.as_deref(),
        Some("https://inbox.example/l/cap-ab12cd34")
    );
    let labels: Vec<&str> = q.choices.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["staging", "prod", "both"]);
    assert_eq!(
        q.choices[1].url,
        "https://inbox.example/l/cap-ab12cd34/choose/2/sig"
    );
    // Four options, a multi-select, or two questions: no buttons.
    assert!(
        question(r#"{"question":"Q?","options":["a","b","c","d"]}"#)
            .choices
            .is_empty()
    );
    assert!(
        question(r#"{"question":"Q?","options":["a","b"],"multiple":true}"#)
            .choices
            .is_empty()
    );
    let two = question(
        r#"{"title":"Release","questions":[{"question":"A?","options":["x","y"]},{"question":"B?","type":"text"}]}"#,
    );
    assert!(two.choices.is_empty());
    assert_eq!(two.headline(), "Release");
    let text = plain_text(&two);
    assert!(
        text.contains("1. A?\n   1) x\n   2) y\n") && text.contains("2. B?"),
        "{text}"
    );
    assert!(
        text.ends_with("Answer: https://inbox.example/l/cap-ab12cd34\n"),
        "{text}"
    );
}

#[test]
fn the_ntfy_message_is_ntfys_json_with_http_actions() {
    let ntfy = ntfy::Ntfy::parse("https://ntfy.example/base/my_topic", &env_of(&[])).unwrap();
    let q = question(r#"{"question":"Deploy?","options":["staging","prod","both"]}"#);
    let json: Value = serde_json::to_value(ntfy.message(&q)).unwrap();
    assert_eq!(json["topic"], "my_topic");
    assert_eq!(json["title"], "Deploy?");
    assert_eq!(json["click"], "https://inbox.example/l/cap-ab12cd34");
    assert_eq!(
        json["message"],
        "Deploy?\n1) staging\n2) prod\n3) both\n(asked by claude)"
    );
    let actions = json["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 3);
    assert_eq!(
        actions[0],
        serde_json::json!({"action":"http","label":"staging","url":"https://inbox.example/l/cap-ab12cd34/choose/1/sig","method":"POST","headers":{"Content-Type":"application/json"},"body":"{}","clear":true})
    );
    // Without buttons: one view action to the link.
    let q = question(r#"{"question":"Name?","type":"text"}"#);
    let json: Value = serde_json::to_value(ntfy.message(&q)).unwrap();
    assert_eq!(
        json["actions"],
        serde_json::json!([{"action":"view","label":"Answer","url":"https://inbox.example/l/cap-ab12cd34"}])
    );
}

#[test]
fn the_slack_message_is_block_kit_with_escaped_text() {
    let q = question(r#"{"question":"Ship <@here> & go?","options":["yes","no"]}"#);
    let json = slack::message(&q);
    let types: Vec<&str> = json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["header", "section", "context", "actions"]);
    assert_eq!(json["blocks"][0]["text"]["type"], "plain_text");
    assert_eq!(
        json["blocks"][1]["text"]["text"],
        "*Ship &lt;@here&gt; &amp; go?*\n1. yes\n2. no"
    );
    assert_eq!(
        json["blocks"][3]["elements"][0]["url"],
        "https://inbox.example/l/cap-ab12cd34"
    );
    assert!(
        json["text"]
            .as_str()
            .unwrap()
            .contains("https://inbox.example/l/cap-ab12cd34")
    );
}

#[test]
fn the_webhook_event_is_a_cloudevent_carrying_a_cdevent() {
    let q = question(r#"{"question":"Deploy?","options":["a","b"]}"#);
    let event = webhook::event(&Notice::Asked(q), "https://inbox.example");
    for attribute in [
        "specversion",
        "id",
        "source",
        "type",
        "time",
        "datacontenttype",
        "data",
    ] {
        assert!(event.get(attribute).is_some(), "{attribute}");
    }
    assert_eq!(event["specversion"], "1.0");
    assert_eq!(event["type"], "dev.cdevents.approval.created.0.1.0");
    assert_eq!(event["data"]["context"]["type"], event["type"]);
    assert_eq!(
        event["data"]["subject"]["content"]["approvalDetailsUrl"],
        "https://inbox.example/l/cap-ab12cd34"
    );
    assert_eq!(
        event["data"]["subject"]["content"]["requestor"],
        "urn:ask-user:asker:claude"
    );
    let closed = webhook::event(
        &Notice::Closed(Closed {
            inbox_id: "ab12cd34".into(),
            outcome: "timed_out",
            face: "inbox",
            at: "2026-11-28T04:00:01.000Z".into(),
        }),
        "https://inbox.example",
    );
    assert_eq!(closed["type"], "dev.cdevents.approval.closed.0.1.0");
    assert_eq!(closed["data"]["subject"]["content"]["status"], "expired");
    assert_eq!(
        closed["data"]["subject"]["content"]["decision"],
        "timed_out"
    );
    assert_ne!(closed["id"], event["id"]);
    // The signature: HMAC-SHA256 of "timestamp.body", as RFC 4231's
    // construction computes it (checked with Python's hmac below in
    // tests/inbox_channels.rs; here against ring's verify).
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, b"0123456789abcdef");
    let signed = webhook::signature(&key, "1700000000", b"{}");
    let hex = signed.strip_prefix("sha256=").unwrap();
    let tag: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    ring::hmac::verify(&key, b"1700000000.{}", &tag).unwrap();
}

/// A channel and the sending end of its queue, as `dispatch` takes them.
type Queue = (Arc<Channel>, mpsc::Sender<Arc<Notice>>);

/// An ntfy and a webhook channel (both on a port nothing answers), each with
/// a queue of `capacity` notices, and the queues' receiving ends.
fn ntfy_and_webhook_queues(capacity: usize) -> (Vec<Queue>, Vec<mpsc::Receiver<Arc<Notice>>>) {
    let env = env_of(&[("ASK_USER_WEBHOOK_SECRET", "0123456789abcdef0123")]);
    let channels = resolve(
        &[
            Spec::parse("ntfy=http://127.0.0.1:9/topic").unwrap(),
            Spec::parse("webhook=http://127.0.0.1:9/hook").unwrap(),
        ],
        &env,
    )
    .unwrap();
    let mut receivers = Vec::new();
    let queues = channels
        .into_iter()
        .map(|channel| {
            let (sender, receiver) = mpsc::channel(capacity);
            receivers.push(receiver);
            (Arc::new(channel), sender)
        })
        .collect();
    (queues, receivers)
}

#[test]
fn a_full_queue_drops_and_counts_and_closes_reach_only_the_channels_that_want_them() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Queues of one notice each, never drained: a channel that is down.
    let (queues, mut receivers) = ntfy_and_webhook_queues(1);
    let metrics = Metrics::default();
    let (changes, listening) = broadcast::channel(16);
    let document = prompt_of(r#"{"question":"Q?","options":["a","b"]}"#);
    for _ in 0..3 {
        changes
            .send(Change::Asked(Arc::from(listed(&document).as_str())))
            .unwrap();
    }
    changes
        .send(Change::Closed {
            id: "ab12cd34".into(),
            outcome: crate::store::Outcome::Answered,
            face: crate::store::Face::Cli,
            announced: true,
        })
        .unwrap();
    drop(changes);
    runtime.block_on(dispatch(listening, &queues, &metrics, &FakeLinks));
    let text = metrics.render(&crate::metrics::StoreGauges {
        kind: "sqlite",
        reachable: true,
        replicas: Some(1),
    });
    // ntfy: one queued, two dropped (the close is not for it); the webhook:
    // one queued, two asks and the close dropped.
    assert!(
        text.contains("mcp_notify_dropped_total{channel=\"ntfy\"} 2\n"),
        "{text}"
    );
    assert!(
        text.contains("mcp_notify_dropped_total{channel=\"webhook\"} 3\n"),
        "{text}"
    );
    for receiver in &mut receivers {
        let notice = receiver.try_recv().unwrap();
        assert!(matches!(&*notice, Notice::Asked(q) if q.inbox_id == "ab12cd34"));
    }
}

#[test]
fn a_card_update_is_no_new_question_for_the_channels() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let env = env_of(&[]);
    let channels = resolve(&[Spec::parse("ntfy=http://127.0.0.1:9/t").unwrap()], &env).unwrap();
    let (sender, mut receiver) = mpsc::channel(4);
    let queues: Vec<_> = channels
        .into_iter()
        .map(|channel| (Arc::new(channel), sender.clone()))
        .collect();
    let (changes, listening) = broadcast::channel(16);
    let document = prompt_of(r#"{"question":"Q?","options":["a","b"]}"#);
    changes
        .send(Change::Updated(Arc::from(listed(&document).as_str())))
        .unwrap();
    drop(changes);
    runtime.block_on(dispatch(
        listening,
        &queues,
        &Metrics::default(),
        &FakeLinks,
    ));
    assert!(receiver.try_recv().is_err(), "an update is not notified");
}

#[test]
fn another_replicas_question_and_its_end_are_left_to_that_replica() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A webhook: it hears of new questions and of their ends.
    let env = env_of(&[("ASK_USER_WEBHOOK_SECRET", "0123456789abcdef0123")]);
    let channels = resolve(
        &[Spec::parse("webhook=http://127.0.0.1:9/hook").unwrap()],
        &env,
    )
    .unwrap();
    let (sender, mut receiver) = mpsc::channel(8);
    let queues: Vec<_> = channels
        .into_iter()
        .map(|channel| (Arc::new(channel), sender.clone()))
        .collect();
    let (changes, listening) = broadcast::channel(16);
    let document = prompt_of(r#"{"question":"Q?","options":["a","b"]}"#);
    let closed = |announced| Change::Closed {
        id: "ab12cd34".into(),
        outcome: crate::store::Outcome::Answered,
        face: crate::store::Face::Cli,
        announced,
    };
    changes
        .send(Change::Heard(Arc::from(listed(&document).as_str())))
        .unwrap();
    changes.send(closed(false)).unwrap();
    // This replica's own question and its end are announced.
    changes
        .send(Change::Asked(Arc::from(listed(&document).as_str())))
        .unwrap();
    changes.send(closed(true)).unwrap();
    drop(changes);
    runtime.block_on(dispatch(
        listening,
        &queues,
        &Metrics::default(),
        &FakeLinks,
    ));
    let first = receiver.try_recv().unwrap();
    assert!(matches!(&*first, Notice::Asked(q) if q.inbox_id == "ab12cd34"));
    let second = receiver.try_recv().unwrap();
    assert!(matches!(&*second, Notice::Closed(c) if c.inbox_id == "ab12cd34"));
    assert!(receiver.try_recv().is_err(), "nothing else: {first:?}");
}

/// Changes that came faster than they were read are lost: each channel
/// counts them dropped (whether or not it would have wanted them), and what
/// came after them is still queued.
#[test]
fn changes_missed_in_a_burst_are_counted_dropped_for_every_channel() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (queues, mut receivers) = ntfy_and_webhook_queues(8);
    let metrics = Metrics::default();
    // Room for one change: the first two of three are gone before the read.
    let (changes, listening) = broadcast::channel(1);
    let document = prompt_of(r#"{"question":"Q?","options":["a","b"]}"#);
    for _ in 0..3 {
        changes
            .send(Change::Asked(Arc::from(listed(&document).as_str())))
            .unwrap();
    }
    drop(changes);
    runtime.block_on(dispatch(listening, &queues, &metrics, &FakeLinks));
    let text = metrics.render(&crate::metrics::StoreGauges {
        kind: "sqlite",
        reachable: true,
        replicas: Some(1),
    });
    for channel in ["ntfy", "webhook"] {
        assert!(
            text.contains(&format!(
                "mcp_notify_dropped_total{{channel=\"{channel}\"}} 2\n"
            )),
            "{channel}: {text}"
        );
    }
    for receiver in &mut receivers {
        assert!(matches!(&*receiver.try_recv().unwrap(), Notice::Asked(_)));
        assert!(receiver.try_recv().is_err(), "one notice only");
    }
}

/// A failing channel is tried again after 250 ms, then after twice as long
/// each time: a receiver that is down is not hammered. In 1.2 s that is the
/// first attempt and two retries (at 0.25 s and 0.75 s), never more.
#[test]
fn retries_wait_twice_as_long_each_time() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Each connection is closed unanswered: a transient failure.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let attempts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&attempts);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    let day = Duration::from_secs(86_400);
    let hub = Hub::new(Box::new(store), day, day).unwrap();
    let url = format!("ntfy=http://127.0.0.1:{port}/topic");
    let channel = resolve(&[Spec::parse(&url).unwrap()], &env_of(&[]))
        .unwrap()
        .remove(0);
    let notice = Notice::Asked(question(r#"{"question":"Q?","options":["a","b"]}"#));
    let context = Context {
        timeout: Duration::from_secs(1),
        source: "http://127.0.0.1".into(),
    };
    runtime.block_on(async {
        let delivering = deliver(&channel, &notice, &hub, &context);
        let _ = tokio::time::timeout(Duration::from_millis(1200), delivering).await;
    });
    let attempts = attempts.load(std::sync::atomic::Ordering::SeqCst);
    // No lower bound: on a loaded machine the thread may not have accepted
    // yet; more than three is the backoff gone.
    assert!(attempts <= 3, "{attempts} attempts in 1.2 s");
}
