//! The hub's unit tests (moved out of hub.rs, which they made 2,000 lines).
use super::*;
use crate::store::SqliteStore;

const SELECT: &str = r#"{"question":"Deploy where?","options":["Staging","Production"]}"#;

const DAY: Duration = Duration::from_secs(86_400);

fn hub(grace: Duration) -> (tempfile::TempDir, Arc<Hub>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Box::new(SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap());
    (dir, Arc::new(Hub::new(store, grace, DAY).unwrap()))
}

fn request(key: &str, input: &str) -> AskRequest {
    AskRequest {
        key: key.into(),
        input: RawValue::from_string(input.into()).unwrap(),
        source: Source {
            name: Some("test".into()),
            cwd: Some("/tmp".into()),
            pid: Some(1),
        },
        expires_at: None,
        face: Some(AskingFace::Ask),
    }
}

fn value(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap()
}

#[test]
fn rfc3339_dates() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
    assert_eq!(rfc3339(1_795_441_512_345), "2026-11-23T13:45:12.345Z");
    assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
    // The first days of a March, where the algorithm's years begin, in
    // centuries that do and do not leap.
    assert_eq!(rfc3339(5_097_600_000), "1970-03-01T00:00:00.000Z");
    assert_eq!(rfc3339(5_443_200_000), "1970-03-05T00:00:00.000Z");
    assert_eq!(rfc3339(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
}

/// A question stored by another replica (its own connection), unknown
/// to this hub until it reads the store.
fn ask_elsewhere(other: &mut SqliteStore, key: &str) -> String {
    let question = NewQuestion {
        ask_key: key.into(),
        input: SELECT.into(),
        prompt: r#"{"tool":"ask_user"}"#.into(),
        source: Source::default(),
        asked_at: store::now_ms(),
        expires_at: None,
        asked_by: None,
    };
    other.ask(&question).unwrap().0
}

#[test]
fn resync_brings_in_what_another_replica_wrote() {
    let (dir, hub) = hub(Duration::from_secs(60));
    // Another replica: a connection of its own to the same store.
    let mut other = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    let Asked { inbox_id: ours } = hub.ask(&request("k1", SELECT)).unwrap();
    let Wait::Pending(mut waiter) = hub.wait(&ours).unwrap() else {
        panic!("pending");
    };
    let Asked { inbox_id: kept } = hub.ask(&request("k3", SELECT)).unwrap();
    let decided = Decision {
        outcome: Outcome::Answered,
        face: Face::Page,
        document: r#"{"n":1}"#.into(),
        at: store::now_ms(),
        by: Some("Ada".into()),
    };
    assert_eq!(other.decide(&ours, &decided).unwrap(), Decided::Now);
    let theirs = ask_elsewhere(&mut other, "k2");
    let (_, mut changes) = hub.subscribe();
    hub.resync().unwrap();
    let mut listed: Vec<String> = hub
        .list()
        .iter()
        .map(|line| value(line)["inboxId"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    let mut expected = vec![kept, theirs.clone()];
    expected.sort();
    assert_eq!(listed, expected, "ours is decided, theirs is listed");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(
        runtime.block_on(waiter.outcome()).as_deref(),
        Some(r#"{"n":1}"#)
    );
    let mut told = Vec::new();
    while let Ok(change) = changes.try_recv() {
        told.push(match change {
            Change::Asked(line) => {
                format!("asked {}", value(&line)["inboxId"].as_str().unwrap())
            }
            Change::Heard(line) => {
                format!("heard {}", value(&line)["inboxId"].as_str().unwrap())
            }
            Change::Closed { id, .. } => format!("closed {id}"),
            Change::Presence { id, .. } => format!("presence {id}"),
            Change::Updated(line) => {
                format!("updated {}", value(&line)["inboxId"].as_str().unwrap())
            }
        });
    }
    told.sort();
    // Theirs was announced by the replica that stored it.
    assert_eq!(told, [format!("closed {ours}"), format!("heard {theirs}")]);
    // A second resync changes nothing and tells nobody.
    hub.resync().unwrap();
    assert!(changes.try_recv().is_err());
}

#[test]
fn a_question_from_another_replica_is_found_before_its_notice() {
    let (dir, hub) = hub(Duration::from_secs(60));
    let mut other = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    // No resync, no notice: a wait, an answer and a leave find it anyway.
    let waited = ask_elsewhere(&mut other, "w");
    assert!(matches!(hub.wait(&waited), Ok(Wait::Pending(_))));
    let answered = ask_elsewhere(&mut other, "a");
    hub.decide(
        &answered,
        Action::Replies(vec!["1".into()], Vec::new()),
        Face::Cli,
    )
    .unwrap();
    let left = ask_elsewhere(&mut other, "l");
    let document = value(&hub.leave(&left, Leaving::Timeout).unwrap());
    assert_eq!(document["timedOut"], true);
    assert_eq!(
        hub.wait("zzzzzzzz").err().unwrap().code(),
        "UNKNOWN_QUESTION"
    );
}

#[test]
fn another_replicas_question_is_heard_and_an_own_ask_heard_first_is_still_asked() {
    let (dir, hub) = hub(Duration::from_secs(60));
    let mut other = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    let (_, mut changes) = hub.subscribe();
    // Another replica's question, heard of through the store's notice: the
    // channels leave it to that replica.
    let theirs = ask_elsewhere(&mut other, "theirs");
    hub.refresh(&theirs).unwrap();
    // An ask here whose question the notice brings in before the ask puts
    // it in memory (its store call stands in `other`): still this
    // replica's to announce, once.
    let asking = Asking::start(&hub, "ours");
    let ours = ask_elsewhere(&mut other, "ours");
    hub.refresh(&ours).unwrap();
    let stored = other.get(&ours).unwrap().unwrap();
    hub.enter(
        &ours,
        Open::from_stored(&stored, Some(Instant::now())).unwrap(),
    )
    .unwrap();
    drop(asking);
    assert!(
        hub.state().asking_keys.is_empty(),
        "the key leaves with its ask"
    );
    // Once its ask is over, the same key heard again is another replica's.
    let again = ask_elsewhere(&mut other, "third");
    hub.refresh(&again).unwrap();
    let mut told = Vec::new();
    while let Ok(change) = changes.try_recv() {
        told.push(match change {
            Change::Asked(line) => format!("asked {}", value(&line)["inboxId"]),
            Change::Heard(line) => format!("heard {}", value(&line)["inboxId"]),
            other => panic!("{other:?}"),
        });
    }
    assert_eq!(
        told,
        [
            format!("heard \"{theirs}\""),
            format!("asked \"{ours}\""),
            format!("heard \"{again}\""),
        ]
    );
}

#[test]
fn two_asks_with_one_key_keep_it_until_both_are_over() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let first = Asking::start(&hub, "k");
    let second = Asking::start(&hub, "k");
    drop(first);
    assert_eq!(hub.state().asking_keys.get("k"), Some(&1));
    drop(second);
    assert!(hub.state().asking_keys.is_empty());
}

#[test]
fn an_answer_refused_because_another_replica_came_first_ends_the_question_here_at_once() {
    let (dir, hub) = hub(Duration::from_secs(60));
    let mut other = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    let Asked { inbox_id: id } = hub.ask(&request("k1", SELECT)).unwrap();
    let Wait::Pending(mut waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    let (_, mut changes) = hub.subscribe();
    // Another replica decides it; its notice has not reached this one (on
    // SQLite none ever does).
    let earlier = Decision {
        outcome: Outcome::Answered,
        face: Face::Page,
        document: r#"{"n":1}"#.into(),
        at: store::now_ms(),
        by: Some("Ada".into()),
    };
    assert_eq!(other.decide(&id, &earlier).unwrap(), Decided::Now);
    let refused = hub.decide(&id, Action::Decline, Face::Cli).unwrap_err();
    assert_eq!(refused.code(), "ALREADY_ANSWERED");
    // What the store said ends it here too: its waiter has the first
    // outcome, the page hears it closed, the list no longer has it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let outcome = runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(2), waiter.outcome()).await });
    assert_eq!(outcome.unwrap().as_deref(), Some(r#"{"n":1}"#));
    assert!(hub.list().is_empty());
    assert!(matches!(
        changes.try_recv(),
        Ok(Change::Closed { id: closed, announced: true, .. }) if closed == id
    ));
}

#[test]
fn an_ask_decided_elsewhere_before_it_is_in_memory_is_not_left_pending() {
    let (dir, hub) = hub(Duration::from_secs(60));
    let mut other = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
    let decided = Decision {
        outcome: Outcome::Answered,
        face: Face::Page,
        document: r#"{"n":1}"#.into(),
        at: store::now_ms(),
        by: None,
    };
    // An ask here has stored its question (on a connection of the pool)
    // and not yet put it in memory; meanwhile another replica decides
    // it, and this one hears the notice.
    let asking = Asking::start(&hub, "gap");
    let id = ask_elsewhere(&mut other, "gap");
    let stored = other.get(&id).unwrap().unwrap();
    assert_eq!(other.decide(&id, &decided).unwrap(), Decided::Now);
    hub.refresh(&id).unwrap();
    let open = Open::from_stored(&stored, Some(Instant::now())).unwrap();
    hub.enter(&id, open).unwrap();
    drop(asking);
    assert!(hub.list().is_empty(), "not listed as pending");
    let Wait::Done(document) = hub.wait(&id).unwrap() else {
        panic!("its outcome, not a wait");
    };
    assert_eq!(&*document, r#"{"n":1}"#);
    // Out of that gap nothing is remembered: a later one is listed.
    assert!(hub.state().closed_while_asking.is_empty());
    let later = ask_elsewhere(&mut other, "later");
    let stored = other.get(&later).unwrap().unwrap();
    let open = Open::from_stored(&stored, Some(Instant::now())).unwrap();
    hub.enter(&later, open).unwrap();
    assert_eq!(hub.list().len(), 1);
}

#[test]
fn calls_on_a_pool_of_connections_keep_each_questions_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.sqlite3");
    let stores = (0..4)
        .map(|_| Box::new(SqliteStore::open(&path).unwrap()) as Box<dyn Store>)
        .collect();
    let hub = Arc::new(Hub::pooled(stores, Duration::from_secs(60), DAY).unwrap());
    let ids: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let hub = &hub;
                scope.spawn(move || {
                    (0..10)
                        .map(|n| {
                            let asked = hub.ask(&request(&format!("k{t}-{n}"), SELECT));
                            let id = asked.unwrap().inbox_id;
                            hub.leave(&id, Leaving::Pending).unwrap();
                            let reply = Action::Replies(vec!["1".into()], Vec::new());
                            hub.decide(&id, reply, Face::Cli).unwrap();
                            id
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap())
            .collect()
    });
    assert_eq!(ids.len(), 80);
    assert!(hub.list().is_empty());
    assert_eq!(hub.history(None).unwrap().len(), 80);
    for id in &ids {
        let kinds: Vec<String> = hub
            .pool
            .any()
            .events(id)
            .unwrap()
            .into_iter()
            .map(|event| event.kind.to_string())
            .collect();
        assert_eq!(kinds, ["asked", "asker_left", "decided"], "{id}");
    }
}

#[test]
fn a_store_failure_says_where_to_look() {
    let lost = store_error(store::Error::Postgres("connection refused".into()));
    assert_eq!(lost.code(), "STORE_ERROR");
    assert!(
        lost.message()
            .ends_with("check that PostgreSQL is up and reachable"),
        "{lost}"
    );
    assert!(lost.message().contains("connection refused"), "{lost}");
    let disk = store_error(store::Error::Corrupt("a row".into()));
    assert!(
        disk.message()
            .ends_with("check the state folder's disk and permissions"),
        "{disk}"
    );
}

#[test]
fn an_askers_key_is_its_own_but_the_inbox_token_may_retry_it() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let Asked { inbox_id: id } = hub.ask_as(&request("k9", SELECT), Some("ci")).unwrap();
    let again = hub.ask_as(&request("k9", SELECT), Some("ci")).unwrap();
    assert_eq!(again.inbox_id, id);
    assert_eq!(hub.ask(&request("k9", SELECT)).unwrap().inbox_id, id);
    let err = hub
        .ask_as(&request("k9", SELECT), Some("other"))
        .unwrap_err();
    assert_eq!((err.code(), err.path()), ("FORBIDDEN", Some("key")));
    // Its question is unknown to another asker, and its own to it.
    assert_eq!(
        hub.wait_as(&id, Some("other")).err().unwrap().code(),
        "UNKNOWN_QUESTION"
    );
    assert_eq!(
        hub.leave_as(&id, Leaving::Timeout, Some("other"))
            .unwrap_err()
            .code(),
        "UNKNOWN_QUESTION"
    );
    assert!(hub.wait_as(&id, Some("ci")).is_ok());
}

#[test]
fn an_answer_reaches_the_waiter_with_the_inbox_id() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let Asked { inbox_id: id } = hub.ask(&request("k1", SELECT)).unwrap();
    let listed = hub.list();
    assert_eq!(listed.len(), 1);
    let item = value(&listed[0]);
    assert_eq!(item["inboxId"], id.as_str());
    assert_eq!(item["source"]["name"], "test");
    assert_eq!(item["document"]["prompt"]["question"], "Deploy where?");
    let Wait::Pending(mut waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    assert_eq!(hub.is_present(&id), Some(true));
    let document = hub
        .decide(
            &id,
            Action::Replies(vec!["2".into()], Vec::new()),
            Face::Cli,
        )
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let got = runtime.block_on(waiter.outcome()).unwrap();
    assert_eq!(got, document);
    assert_eq!(
        value(&got),
        serde_json::json!({"tool":"ask_user","version":1,"status":"ok","answered":true,
            "cancelled":false,"timedOut":false,"inboxId":id,
            "answers":[{"questionId":"q1","values":["Production"],"optionIds":["2"]}],
            "answeredBy":{"kind":"person","name":ask_user_platform::user::name(),"channel":"cli"}})
    );
    assert!(hub.list().is_empty());
    // Later: the outcome at once, and ALREADY_ANSWERED for a second answer.
    let Wait::Done(again) = hub.wait(&id).unwrap() else {
        panic!("done");
    };
    assert_eq!(again, document);
    let err = hub.decide(&id, Action::Cancel, Face::Page).unwrap_err();
    assert_eq!(err.code(), "ALREADY_ANSWERED");
    assert!(err.message().contains("answered from a terminal"), "{err}");
    // And the asker's late timeout gets the answer, not a timeout.
    assert_eq!(hub.leave(&id, Leaving::Timeout).unwrap(), document);
}

#[test]
fn errors_for_unknown_ids_and_bad_replies() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let Asked { inbox_id: id } = hub.ask(&request("k1", SELECT)).unwrap();
    let err = hub
        .decide("00000000", Action::Cancel, Face::Cli)
        .unwrap_err();
    assert_eq!(err.code(), "UNKNOWN_QUESTION");
    assert!(err.message().contains("ask_user inbox list"), "{err}");
    assert_eq!(hub.wait("nope").err().unwrap().code(), "UNKNOWN_QUESTION");
    let err = hub
        .decide(
            &id,
            Action::Replies(vec!["7".into()], Vec::new()),
            Face::Cli,
        )
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_REPLY");
    assert_eq!(hub.list().len(), 1, "a refused reply changes nothing");
    let err = hub
        .ask(&request("k2", r#"{"question":"no options"}"#))
        .unwrap_err();
    assert_eq!(err.code(), "MISSING_OPTIONS");
    let mut bad_key = request("", SELECT);
    assert_eq!(hub.ask(&bad_key).unwrap_err().code(), "INVALID_FIELD");
    bad_key.key = "x".repeat(65);
    assert_eq!(hub.ask(&bad_key).unwrap_err().path(), Some("key"));
}

/// How many store reads (`op="get"`) the hub made.
fn gets(hub: &Hub) -> u64 {
    hub.render_metrics()
        .lines()
        .find_map(|line| line.strip_prefix("mcp_store_latency_ms_count{op=\"get\"} "))
        .map_or(0, |n| n.parse().unwrap())
}

/// The notices heard together are read back together: one read per
/// connection of the pool that holds some of them, not one per notice.
/// Each question is listed once however often it was named, with the
/// escalation steps already fired for it; one decided meanwhile is not
/// listed; an id nobody stored changes nothing.
#[test]
fn questions_heard_together_are_read_once_per_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.sqlite3");
    let stores = (0..3)
        .map(|_| Box::new(SqliteStore::open(&path).unwrap()) as Box<dyn Store>)
        .collect();
    let hub = Hub::pooled(stores, Duration::from_secs(60), DAY).unwrap();
    let mut other = SqliteStore::open(&path).unwrap();
    let (_, mut changes) = hub.subscribe();
    let ids: Vec<String> = (0..12)
        .map(|n| ask_elsewhere(&mut other, &format!("k{n}")))
        .collect();
    let fired = store::Escalation {
        question: ids[3].clone(),
        step: 1,
        after: 1_000,
        notify: "ops".into(),
        at: store::now_ms(),
    };
    assert_eq!(other.escalate(&fired).unwrap(), store::Escalated::Fired);
    let decided = Decision {
        outcome: Outcome::Cancelled,
        face: Face::Cli,
        document: "{}".into(),
        at: store::now_ms(),
        by: None,
    };
    assert_eq!(other.decide(&ids[5], &decided).unwrap(), Decided::Now);
    let mut heard = ids.clone();
    heard.extend(ids[..4].iter().cloned());
    heard.push("zzzzzzzz".into());
    let connections: HashSet<usize> = heard.iter().map(|id| hub.pool.index(id)).collect();
    let before = gets(&hub);
    hub.refresh_all(&heard).unwrap();
    assert_eq!(gets(&hub) - before, connections.len() as u64);
    let mut listed = Vec::new();
    while let Ok(change) = changes.try_recv() {
        let Change::Heard(line) = change else {
            panic!("{change:?}");
        };
        let line = value(&line);
        let steps = line["escalations"].as_array().map_or(0, Vec::len);
        listed.push((line["inboxId"].as_str().unwrap().to_string(), steps));
    }
    listed.sort();
    let mut expected: Vec<(String, usize)> = ids
        .iter()
        .filter(|id| **id != ids[5])
        .map(|id| (id.clone(), usize::from(*id == ids[3])))
        .collect();
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(hub.list().len(), 11);
}

/// A question this replica holds is waited on, left and answered from
/// memory: no store read (`op="get"`) for it.
#[test]
fn a_held_question_is_not_read_from_the_store_again() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let gets = |hub: &Hub| -> u64 {
        hub.render_metrics()
            .lines()
            .find_map(|line| line.strip_prefix("mcp_store_latency_ms_count{op=\"get\"} "))
            .map_or(0, |n| n.parse().unwrap())
    };
    let Asked { inbox_id: id } = hub.ask(&request("k1", SELECT)).unwrap();
    let before = gets(&hub);
    let Wait::Pending(_waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    hub.leave(&id, Leaving::Away).unwrap();
    hub.decide(
        &id,
        Action::Replies(vec!["1".into()], Vec::new()),
        Face::Cli,
    )
    .unwrap();
    assert_eq!(gets(&hub), before);
}

/// The time-to-answer histogram takes the time from the ask to the answer.
#[test]
fn an_answer_is_timed_from_its_ask() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let started = std::time::Instant::now();
    let Asked { inbox_id: id } = hub.ask(&request("k1", SELECT)).unwrap();
    std::thread::sleep(Duration::from_millis(60));
    hub.decide(
        &id,
        Action::Replies(vec!["1".into()], Vec::new()),
        Face::Cli,
    )
    .unwrap();
    let elapsed = started.elapsed().as_millis();
    let metrics = hub.render_metrics();
    let sum: u128 = metrics
        .lines()
        .find_map(|line| line.strip_prefix("mcp_question_latency_ms_sum "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a sum: {metrics}"));
    // The clock the hub reads has whole milliseconds: one either side.
    assert!((59..=elapsed + 1).contains(&sum), "{sum} ms of {elapsed}");
    assert!(
        metrics.contains("mcp_question_latency_ms_count 1\n"),
        "{metrics}"
    );
}

/// Each limit takes its longest value and refuses one character more
/// (and far more); characters are counted, not bytes.
#[test]
fn an_asks_key_name_and_folder_are_refused_past_their_limits() {
    let refused = |request: &AskRequest| {
        let err = check_request(request).unwrap_err();
        (
            err.code(),
            err.path().map(str::to_string),
            err.message().to_string(),
        )
    };
    let mut ask = request(&"k".repeat(MAX_KEY_CHARS), SELECT);
    assert!(check_request(&ask).is_ok());
    for key in [
        "k".repeat(MAX_KEY_CHARS + 1),
        "k".repeat(2 * MAX_KEY_CHARS),
        "k y".into(),
        String::new(),
    ] {
        ask.key = key;
        assert_eq!(
            refused(&ask),
            (
                "INVALID_FIELD",
                Some("key".into()),
                "key must be 1 to 64 visible ASCII characters".into()
            )
        );
    }
    ask.key = "k".into();
    type Field = fn(&mut Source) -> &mut Option<String>;
    let fields: [(&str, usize, Field); 2] = [
        ("source.name", MAX_NAME_CHARS, |source| &mut source.name),
        ("source.cwd", MAX_CWD_CHARS, |source| &mut source.cwd),
    ];
    for (path, max, field) in fields {
        *field(&mut ask.source) = Some("é".repeat(max));
        assert!(check_request(&ask).is_ok(), "{path}");
        for long in [max + 1, 2 * max] {
            *field(&mut ask.source) = Some("é".repeat(long));
            let message = format!("{path} must be at most {max} characters");
            assert_eq!(refused(&ask), ("INVALID_FIELD", Some(path.into()), message));
        }
        *field(&mut ask.source) = None;
    }
}

#[test]
fn a_retry_is_the_same_question_and_a_restart_keeps_pending_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.sqlite3");
    let hub = Hub::new(
        Box::new(SqliteStore::open(&path).unwrap()),
        Duration::from_secs(60),
        DAY,
    )
    .unwrap();
    let first = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    assert_eq!(hub.ask(&request("k1", SELECT)).unwrap().inbox_id, first);
    let second = hub.ask(&request("k2", SELECT)).unwrap().inbox_id;
    hub.decide(&second, Action::Decline, Face::Page).unwrap();
    let third = hub.ask(&request("k3", SELECT)).unwrap().inbox_id;
    drop(hub);
    let hub = Arc::new(
        Hub::new(
            Box::new(SqliteStore::open(&path).unwrap()),
            Duration::from_secs(60),
            DAY,
        )
        .unwrap(),
    );
    let ids: Vec<String> = hub
        .list()
        .iter()
        .map(|l| value(l)["inboxId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [first.clone(), third]);
    let declined = hub.wait(&second).ok().and_then(|w| match w {
        Wait::Done(document) => Some(value(&document)),
        Wait::Pending(_) => None,
    });
    assert_eq!(declined.unwrap()["reason"], "declined");
    hub.decide(
        &first,
        Action::Replies(vec!["Staging".into()], Vec::new()),
        Face::Page,
    )
    .unwrap();
}

#[test]
fn a_question_without_its_asker_is_marked_gone_then_kept_for_the_retention_time() {
    let (_dir, hub) = hub(Duration::from_secs(5));
    let id = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    let start = Instant::now();
    let wall = store::now_ms();
    let Wait::Pending(waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    assert!(
        hub.sweep(start + Duration::from_secs(60), wall).is_empty(),
        "present"
    );
    assert!(value(&hub.list()[0]).get("askerGone").is_none());
    drop(waiter);
    assert_eq!(hub.is_present(&id), Some(false));
    assert!(hub.sweep(Instant::now(), wall).is_empty());
    assert!(
        value(&hub.list()[0]).get("askerGone").is_none(),
        "within the grace time"
    );
    // After the grace time: marked, not ended.
    let later = Instant::now() + Duration::from_secs(6);
    assert!(hub.sweep(later, wall).is_empty());
    let listed = value(&hub.list()[0]);
    assert_eq!(listed["askerGone"]["reason"], "disconnected");
    assert_eq!(listed["askerGone"]["since"], rfc3339(wall).as_str());
    assert_eq!(
        listed["askerGone"]["keptUntil"],
        rfc3339(wall + 86_400_000).as_str()
    );
    // A day later, the inbox ends it: asker gone, and a resume is refused.
    let ended = hub.sweep(later, wall + 86_400_000);
    assert_eq!(ended, std::slice::from_ref(&id));
    assert!(hub.list().is_empty());
    let err = hub.wait(&id).err().unwrap();
    assert_eq!(err.code(), "UNKNOWN_QUESTION");
    assert!(err.message().contains("has expired"), "{err}");
    assert!(err.message().contains("24 h"), "{err}");
    let err = hub
        .decide(
            &id,
            Action::Replies(vec!["1".into()], Vec::new()),
            Face::Page,
        )
        .unwrap_err();
    assert!(err.message().contains("its asker went away"), "{err}");
    let history = hub.history(None).unwrap();
    assert_eq!(history.len(), 1);
    let entry = value(&history[0]);
    assert_eq!(
        (entry["outcome"].as_str(), entry["face"].as_str()),
        (Some("asker_gone"), Some("inbox"))
    );
    assert_eq!(entry["answer"]["reason"], "asker gone");
}

#[test]
fn an_asker_that_times_out_leaves_its_question_open_for_a_resume() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let id = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    let Wait::Pending(waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    let left = value(&hub.leave(&id, Leaving::Timeout).unwrap());
    drop(waiter);
    assert_eq!(left["timedOut"], true);
    assert_eq!(left["inboxId"], id.as_str());
    let hint = left["hint"].as_str().unwrap();
    assert!(hint.contains(&format!(r#"{{"resume": "{id}"}}"#)), "{hint}");
    assert!(hint.contains("for 24 h"), "{hint}");
    assert_eq!(hint.matches(". ").count(), 0, "one sentence: {hint}");
    assert_eq!(value(&hub.list()[0])["askerGone"]["reason"], "timeout");
    assert!(hub.history(None).unwrap().is_empty(), "not decided");
    // Answered meanwhile; the resume gets it at once.
    let answered = hub
        .decide(
            &id,
            Action::Replies(vec!["Staging".into()], vec![]),
            Face::Page,
        )
        .unwrap();
    let Wait::Done(resumed) = hub.wait(&id).unwrap() else {
        panic!("done");
    };
    assert_eq!(resumed, answered);
    assert_eq!(value(&resumed)["answers"][0]["values"][0], "Staging");
    // An outcome older than the retention time has expired.
    let decided = hub
        .pool
        .of(&id)
        .get(&id)
        .unwrap()
        .unwrap()
        .decision
        .unwrap();
    assert!(!hub.expired(&decided, decided.at + 86_399_999));
    assert!(hub.expired(&decided, decided.at + 86_400_000));
}

#[test]
fn a_wait_that_ends_leaves_the_question_open_and_pending_and_an_answer_wins() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let id = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    let left = value(&hub.leave(&id, Leaving::Pending).unwrap());
    assert_eq!(
        (&left["answered"], &left["cancelled"], &left["timedOut"]),
        (&false.into(), &false.into(), &false.into())
    );
    assert_eq!(left["pending"], true);
    assert_eq!(left["inboxId"], id.as_str());
    let hint = left["hint"].as_str().unwrap();
    assert!(hint.contains(&format!(r#"{{"resume": "{id}"}}"#)), "{hint}");
    assert_eq!(value(&hub.list()[0])["askerGone"]["reason"], "pending");
    // A resume's wait that ends again is pending again.
    let Wait::Pending(waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    assert_eq!(
        value(&hub.leave(&id, Leaving::Pending).unwrap())["pending"],
        true
    );
    drop(waiter);
    // The person answered just before the wait ended: the leave gets the answer.
    let answered = hub
        .decide(
            &id,
            Action::Replies(vec!["Staging".into()], vec![]),
            Face::Page,
        )
        .unwrap();
    assert_eq!(hub.leave(&id, Leaving::Pending).unwrap(), answered);
    assert!(value(&answered).get("pending").is_none());
}

#[test]
fn a_resume_clears_the_mark_and_a_retention_end_after_a_timeout_is_timed_out() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let id = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    hub.leave(&id, Leaving::Away).unwrap();
    assert_eq!(value(&hub.list()[0])["askerGone"]["reason"], "away");
    let Wait::Pending(waiter) = hub.wait(&id).unwrap() else {
        panic!("pending");
    };
    assert!(value(&hub.list()[0]).get("askerGone").is_none(), "back");
    let left = value(&hub.leave(&id, Leaving::Timeout).unwrap());
    assert_eq!(left["timedOut"], true);
    drop(waiter);
    let wall = store::now_ms();
    assert!(hub.sweep(Instant::now(), wall + 86_399_000).is_empty());
    assert_eq!(
        hub.sweep(Instant::now(), wall + 86_401_000),
        std::slice::from_ref(&id)
    );
    let entry = value(&hub.history(Some(1)).unwrap()[0]);
    assert_eq!(entry["outcome"], "timed_out");
    assert_eq!(entry["answer"]["timedOut"], true);
    let kinds: Vec<String> = hub
        .pool
        .of(&id)
        .events(&id)
        .unwrap()
        .into_iter()
        .map(|event| format!("{} {}", event.kind, event.detail.unwrap_or_default()))
        .collect();
    assert_eq!(
        kinds,
        [
            "asked ",
            "asker_left away",
            "asker_back ",
            "asker_left timeout",
            "decided timed_out/inbox"
        ]
    );
}

#[test]
fn a_dismissed_question_resumes_as_cancelled() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let id = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    hub.leave(&id, Leaving::Timeout).unwrap();
    let dismissed = value(&hub.decide(&id, Action::Dismiss, Face::Page).unwrap());
    let Wait::Done(resumed) = hub.wait(&id).unwrap() else {
        panic!("done");
    };
    let resumed = value(&resumed);
    assert_eq!(resumed, dismissed);
    assert_eq!(
        (
            &resumed["cancelled"],
            &resumed["answered"],
            &resumed["reason"]
        ),
        (
            &serde_json::json!(true),
            &serde_json::json!(false),
            &serde_json::json!("dismissed")
        )
    );
    assert_eq!(resumed["answers"], serde_json::json!([]));
}

#[test]
fn nobody_answered_a_decline_a_cancel_a_dismissal_or_a_timeout() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let mut ended = Vec::new();
    for (key, action) in [
        ("k1", Action::Decline),
        ("k2", Action::Cancel),
        ("k3", Action::Replies(vec!["1".into()], Vec::new())),
    ] {
        let id = hub.ask(&request(key, SELECT)).unwrap().inbox_id;
        ended.push(value(&hub.decide(&id, action, Face::Page).unwrap()));
    }
    let id = hub.ask(&request("k4", SELECT)).unwrap().inbox_id;
    ended.push(value(&hub.leave(&id, Leaving::Timeout).unwrap()));
    ended.push(value(
        &hub.decide(&id, Action::Dismiss, Face::Page).unwrap(),
    ));
    let id = hub.ask(&request("k5", SELECT)).unwrap().inbox_id;
    ended.push(value(&hub.leave(&id, Leaving::Cancelled).unwrap()));
    let by: Vec<_> = ended.iter().map(|d| d.get("answeredBy").cloned()).collect();
    assert_eq!(
        by,
        [
            None,
            None,
            Some(
                serde_json::json!({"kind":"person","name":ask_user_platform::user::name(),"channel":"page"})
            ),
            None,
            None,
            None,
        ]
    );
}

#[test]
fn human_durations() {
    assert_eq!(human(Duration::from_secs(86_400)), "24 h");
    assert_eq!(human(Duration::from_secs(3600)), "1 h");
    assert_eq!(human(Duration::from_secs(5400)), "90 min");
    assert_eq!(human(Duration::from_secs(60)), "1 min");
    assert_eq!(human(Duration::from_secs(90)), "90 s");
    assert_eq!(human(Duration::from_secs(2)), "2 s");
}

#[test]
fn the_page_hears_every_change_after_its_snapshot() {
    let (_dir, hub) = hub(Duration::from_secs(60));
    let first = hub.ask(&request("k1", SELECT)).unwrap().inbox_id;
    let (snapshot, mut changes) = hub.subscribe();
    assert_eq!(snapshot.len(), 1);
    let second = hub.ask(&request("k2", SELECT)).unwrap().inbox_id;
    let waiter = hub.wait(&second).unwrap();
    drop(waiter);
    hub.leave(&first, Leaving::Cancelled).unwrap();
    let mut seen = Vec::new();
    while let Ok(change) = changes.try_recv() {
        seen.push(match change {
            Change::Asked(listed) => format!("asked {}", value(&listed)["inboxId"]),
            Change::Heard(listed) => format!("heard {}", value(&listed)["inboxId"]),
            Change::Presence { id, present } => format!("{id} present {present}"),
            Change::Closed {
                id, outcome, face, ..
            } => {
                format!("{id} {} by {}", outcome.as_str(), face.as_str())
            }
            Change::Updated(listed) => format!("updated {}", value(&listed)["inboxId"]),
        });
    }
    assert_eq!(
        seen,
        [
            format!("asked \"{second}\""),
            format!("{second} present true"),
            format!("{second} present false"),
            format!("{first} cancelled by asker"),
        ]
    );
}
