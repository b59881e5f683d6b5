//! The team inbox (issue 24): several `ask_user inbox` replicas, as real
//! processes, on one real PostgreSQL (tests/common/postgres.rs). Each replica
//! has a state folder (and token) of its own; they share the store, and hear
//! each other's changes by LISTEN/NOTIFY.

mod common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::browser::{browser_at, go_on};
use common::clients::chromium;
use common::harness;
use common::inbox::{
    Asker, Inbox, assert_error, command, run, run_with_input_within, state, until,
};
use common::page::{self, Response};
use common::postgres::{self, Server};
use common::process::spawn_asking;

const DATABASE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

common::harness::main!(
    a_new_ask_during_a_store_outage_waits_within_its_timeout_across_the_replicas,
    a_read_only_database_refuses_a_new_ask_at_once_and_takes_it_once_writable,
    an_asker_on_one_replica_is_answered_and_cancelled_through_another,
    an_asker_on_one_replica_is_answered_in_the_page_of_another,
    a_pages_event_stream_carries_the_changes_of_every_replica,
    asker_gone_and_back_and_a_dismissal_show_on_every_replica,
    a_question_resumed_on_another_replica_gets_the_answer_given_on_the_first,
    kill_9_one_replica_under_three_askers_and_each_finds_its_question_on_the_next,
    sigterm_drains_a_replica_its_askers_move_to_the_next_and_it_exits_within_the_bound,
    metrics_count_the_replicas_on_the_store_and_time_its_calls,
    postgres_stopped_for_5_s_loses_nothing_and_every_change_arrives_after,
    an_unreachable_store_is_a_clear_error_at_start,
    healthz_and_readyz_need_no_token_and_readyz_follows_the_store,
    person_and_asker_tokens_do_what_their_role_allows_and_nothing_else,
    a_token_kept_in_the_store_works_on_every_replica_at_once_until_removed,
    concurrent_asks_and_answers_through_two_pooled_replicas_lose_nothing_and_keep_each_order,
    store_connections_out_of_range_is_a_usage_error,
    each_replica_opens_its_store_connections_and_one_to_listen,
    quorum_votes_racing_through_two_replicas_count_once_and_decide_once,
    a_quorum_card_counts_the_votes_of_every_replica_in_the_page,
    a_persons_groups_reach_every_replica_and_an_asker_learns_none,
    store_calls_held_by_a_lock_hold_no_other_request,
);

fn replica(dir: &std::path::Path, url: &str, extra: &[&str]) -> Inbox {
    let mut args = vec!["--port", "0", "--store", url];
    args.extend_from_slice(extra);
    Inbox::start_with(dir, &args)
}

/// `{"resume": id}` through `ask --ui inbox`, waiting in the background.
fn resume(dir: &std::path::Path, id: &str) -> Asker {
    let asker = Asker::spawn(
        command(dir, &["ask", "--ui", "inbox", "-"]),
        &format!(r#"{{"resume":"{id}"}}"#),
    );
    assert_eq!(asker.id, id);
    asker
}

/// Two replicas, each with a state folder (and token) of its own, on a new
/// database of `server`.
fn two_replicas(
    server: &Server,
    extra: &[&str],
) -> (tempfile::TempDir, Inbox, tempfile::TempDir, Inbox) {
    let url = server.new_database();
    let (dir_a, dir_b) = (state(), state());
    let a = replica(dir_a.path(), &url, extra);
    let b = replica(dir_b.path(), &url, extra);
    (dir_a, a, dir_b, b)
}

/// Question `id` answered with option `option` by the inbox's own token
/// on the command line.
fn answered(id: &str, option: usize) -> Value {
    answered_by(id, option, common::answered_by("cli"))
}

/// [`answered`], by `by` (`answeredBy`).
fn answered_by(id: &str, option: usize, by: Value) -> Value {
    let label = ["PostgreSQL", "SQLite"][option - 1];
    json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
           "timedOut":false,"inboxId":id,
           "answers":[{"questionId":"q1","values":[label],"optionIds":[option.to_string()]}],
           "answeredBy":by})
}

fn listed<'a>(list: &'a [Value], id: &str) -> Option<&'a Value> {
    list.iter().find(|item| item["inboxId"] == id)
}

const SOON: Duration = Duration::from_secs(10);

fn an_asker_on_one_replica_is_answered_and_cancelled_through_another() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let (dir_a, a, dir_b, b) = two_replicas(server, &[]);
    // Asked on A: listed on B at once (B heard A's notice).
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    until(SOON, "B lists A's question", || {
        listed(&b.list(), &asker.id).is_some()
    });
    // Answered through B's `inbox answer`: A's asker gets it.
    let (code, out) = run(
        dir_b.path(),
        &["inbox", "answer", &asker.id, "--reply", "2"],
    );
    assert_eq!(code, 0, "{out}");
    let id = asker.id.clone();
    assert_eq!(asker.finish(), (0, answered(&id, 2)));
    // Both replicas' history show it, decided from a terminal.
    for dir in [dir_a.path(), dir_b.path()] {
        let (code, out) = run(dir, &["inbox", "history"]);
        assert_eq!(code, 0);
        let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(
            (&entry["inboxId"], &entry["outcome"], &entry["face"]),
            (&json!(id), &json!("answered"), &json!("cli"))
        );
    }
    // Answered again on A: the first answer (B's) won.
    let (code, out) = run(dir_a.path(), &["inbox", "answer", &id, "--reply", "1"]);
    assert_eq!(code, 1);
    assert!(out.contains("ALREADY_ANSWERED"), "{out}");
    // Cancelled through B: A's asker ends cancelled (exit 130).
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let (code, out) = run(dir_b.path(), &["inbox", "cancel", &asker.id]);
    assert_eq!(code, 0, "{out}");
    let (code, document) = asker.finish();
    assert_eq!(
        (code, &document["cancelled"]),
        (130, &json!(true)),
        "{document}"
    );
    // Through B's page (its HTTP API, as the page calls it) too.
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let path = format!("/api/questions/{}/answer", asker.id);
    let reply = b.request("POST", &path, r#"{"answers":[{"optionIds":["1"]}]}"#);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let id = asker.id.clone();
    assert_eq!(
        asker.finish(),
        (0, answered_by(&id, 1, common::answered_by("page")))
    );
    assert!(a.list().is_empty() && b.list().is_empty());
    a.stop();
    b.stop();
}

fn an_asker_on_one_replica_is_answered_in_the_page_of_another() {
    const SCENARIO: &str = "inbox-replica";
    let chromium = chromium(&["playwright-core"]);
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let (dir_a, a, _dir_b, b) = two_replicas(server, &[]);
    // B's page is open, and empty, before anything is asked.
    let mut browser = browser_at(&chromium, SCENARIO, &b.url);
    assert_eq!(browser.said_line(), "empty");
    // Asked on A (its asker finds A by A's inbox.json): the card arrives on
    // B's open page, where the person picks "SQLite" and submits.
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    go_on(SCENARIO);
    let said = browser.wait().assert_passed(SCENARIO);
    eprint!("{said}");
    // A's asker prints the answer given on B's page.
    let id = asker.id.clone();
    assert_eq!(
        asker.finish(),
        (0, answered_by(&id, 2, common::answered_by("page")))
    );
    // A's history records it, decided in a page; so does A's /api/history.
    let (code, out) = run(dir_a.path(), &["inbox", "history"]);
    assert_eq!(code, 0, "{out}");
    let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&entry["inboxId"], &entry["outcome"], &entry["face"]),
        (&json!(id), &json!("answered"), &json!("page")),
        "{entry}"
    );
    assert_eq!(
        entry["answer"],
        answered_by(&id, 2, common::answered_by("page")),
        "{entry}"
    );
    let reply = a.request("GET", "/api/history", "");
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body.contains(&id), "{}", reply.body);
    assert!(a.list().is_empty() && b.list().is_empty());
    a.stop();
    b.stop();
}

/// Reads `stream` until `needle` has arrived (a stream that ends or falls
/// silent for 10 s first fails); returns what was read.
fn read_until(stream: &mut std::net::TcpStream, needle: &str) -> String {
    use std::io::Read;
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&read).contains(needle) {
        match stream.read(&mut chunk) {
            Ok(n) if n > 0 => read.extend_from_slice(&chunk[..n]),
            other => panic!(
                "the stream ended before {needle:?} ({other:?}): {}",
                String::from_utf8_lossy(&read)
            ),
        }
    }
    String::from_utf8_lossy(&read).into_owned()
}

/// The page's own stream (raw, as a browser's EventSource reads it): B's
/// snapshot, then, on the same connection, the question asked on A and its
/// closing, each as it happens. (A browser reconnects when a stream ends and
/// would get the same from the next snapshot, late: hence the raw reader.)
fn a_pages_event_stream_carries_the_changes_of_every_replica() {
    use std::io::Write;
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let (dir_a, a, _dir_b, b) = two_replicas(server, &[]);
    let mut stream = page::connect(b.port);
    let (host, bearer) = (b.host(), format!("Bearer {}", b.token));
    let headers = [("Host", host.as_str()), ("Authorization", bearer.as_str())];
    stream
        .write_all(&page::raw_request("GET", "/api/events", &headers, b""))
        .unwrap();
    let snapshot = read_until(&mut stream, "event: snapshot\ndata: []\n\n");
    assert!(snapshot.starts_with("HTTP/1.1 200"), "{snapshot}");
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let id = asker.id.clone();
    read_until(
        &mut stream,
        &format!("event: asked\ndata: {{\"inboxId\":\"{id}\""),
    );
    let path = format!("/api/questions/{id}/reply");
    assert_eq!(a.request("POST", &path, r#"{"replies":["1"]}"#).status, 200);
    read_until(
        &mut stream,
        &format!("event: closed\ndata: {{\"inboxId\":\"{id}\",\"outcome\":\"answered\""),
    );
    assert_eq!(asker.finish(), (0, answered(&id, 1)));
    a.stop();
    b.stop();
}

fn asker_gone_and_back_and_a_dismissal_show_on_every_replica() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b) = (state(), state());
    let grace = ["--asker-grace", "1"];
    let a = replica(dir_a.path(), &url, &grace);
    let b = replica(dir_b.path(), &url, &grace);
    // An asker on A that gives up after 1 s: "asker gone" on B too.
    let asker = Asker::ask(dir_a.path(), DATABASE, &["--timeout", "1"]);
    let id = asker.id.clone();
    let (code, document) = asker.finish();
    assert_eq!(
        (code, &document["timedOut"]),
        (124, &json!(true)),
        "{document}"
    );
    until(SOON, "B marks the asker gone", || {
        listed(&b.list(), &id).is_some_and(|q| q["askerGone"]["reason"] == "timeout")
    });
    // It comes back (a resume) on B: the mark goes on A too.
    let back = resume(dir_b.path(), &id);
    until(SOON, "A clears the mark", || {
        listed(&a.list(), &id).is_some_and(|q| q.get("askerGone").is_none())
    });
    drop(back);
    // Gone again (the resumer killed: after the grace), then dismissed on A:
    // gone from B's list, and B's history says dismissed.
    until(SOON, "A marks it gone again", || {
        listed(&a.list(), &id).is_some_and(|q| q.get("askerGone").is_some())
    });
    let path = format!("/api/questions/{id}/dismiss");
    let reply = a.request("POST", &path, "{}");
    assert_eq!(reply.status, 200, "{}", reply.body);
    until(SOON, "B drops the dismissed question", || {
        listed(&b.list(), &id).is_none()
    });
    let (_, out) = run(dir_b.path(), &["inbox", "history"]);
    assert!(out.contains("\"outcome\":\"dismissed\""), "{out}");
    a.stop();
    b.stop();
}

fn a_question_resumed_on_another_replica_gets_the_answer_given_on_the_first() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let (dir_a, a, dir_b, b) = two_replicas(server, &[]);
    // The asker on A is killed (its replica's host gave up); it comes back
    // through B, waits there, and the person answers in A's page.
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let id = asker.id.clone();
    drop(asker);
    let resumed = resume(dir_b.path(), &id);
    let path = format!("/api/questions/{id}/answer");
    let reply = a.request("POST", &path, r#"{"answers":[{"optionIds":["2"]}]}"#);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        resumed.finish(),
        (0, answered_by(&id, 2, common::answered_by("page")))
    );
    a.stop();
    b.stop();
}

/// An asker given both replicas while the store is down: each replica
/// answers its ask 503 STORE_ERROR, so it waits and moves between them,
/// saying so on stderr, until the store is back (then it is asked and
/// answered), or until its own timeout (then timedOut, exit 124).
fn a_new_ask_during_a_store_outage_waits_within_its_timeout_across_the_replicas() {
    use std::io::{BufRead as _, Write as _};
    let server = harness::require(Server::start(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, askers_dir) = (state(), state(), state());
    let a = replica(dir_a.path(), &url, &[]);
    std::fs::copy(dir_a.path().join("token"), dir_b.path().join("token")).unwrap();
    let b = replica(dir_b.path(), &url, &[]);
    let both = format!("http://{},http://{}", a.host(), b.host());
    server.stop();
    let asking = |timeout: &str| {
        let mut command = command(
            askers_dir.path(),
            &["ask", "--ui", "inbox", "--timeout", timeout, "-"],
        );
        command
            .env("ASK_USER_INBOX", &both)
            .env("ASK_USER_TOKEN", &a.token);
        let mut child = common::process::spawn_piped(&mut command, std::process::Stdio::piped());
        child
            .stdin
            .take()
            .unwrap()
            .write_all(DATABASE.as_bytes())
            .unwrap();
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let (lines, said) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        (child, said)
    };
    let (mut short, short_said) = asking("10");
    let (mut long, long_said) = asking("60");
    let started = Instant::now();
    // Not failed at once (it was INTERNAL_ERROR in 2-8 ms): both still wait.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        short.try_wait().unwrap().is_none(),
        "the asker gave up at once"
    );
    assert!(
        long.try_wait().unwrap().is_none(),
        "the asker gave up at once"
    );
    // Never in silence: each said at once why it waits, and for how long.
    let first = long_said.try_iter().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "ask_user: the inbox at http://{} cannot store the question yet (503 Service Unavailable: the inbox's store failed",
            a.host()
        )) && first.ends_with("; retrying until it can, for up to 1 min (the asker's timeout)"),
        "{first}"
    );
    // The short one's own timeout ends it: timed out, never an answer.
    let (code, out) = common::process::exit_with_one_line(&mut short, Duration::from_secs(20));
    let took = started.elapsed();
    assert_eq!(code, 124, "{out}");
    let document: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(document["timedOut"], true, "{document}");
    assert!(document.get("answeredBy").is_none(), "{document}");
    assert!(took >= Duration::from_secs(9), "{took:?}");
    let moves: Vec<String> = short_said.try_iter().collect();
    let moved_from = |host: String| {
        moves.iter().any(|line| {
            line.starts_with(&format!("ask_user: the inbox replica at http://{host}"))
                && line
                    .contains("did not answer (503 Service Unavailable: the inbox's store failed")
        })
    };
    assert!(moved_from(a.host()) && moved_from(b.host()), "{moves:?}");
    // The store comes back: the long one is asked, and answered.
    server.run();
    let asked = long_said
        .iter()
        .find(|line| line.contains("asked in the inbox"))
        .expect("asked once the store is back");
    let id = asked
        .split("question ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_string();
    let (code, out) = run(dir_b.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = common::process::exit_with_one_line(&mut long, Duration::from_secs(30));
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        answered(&id, 2)
    );
    a.stop();
    b.stop();
}

/// A store that refuses writes for good is not an outage: the asker is not
/// kept waiting (in silence, or at all), it gets STORE_ERROR at once; the
/// replica says why on stderr once; writable again, the next ask goes in.
fn a_read_only_database_refuses_a_new_ask_at_once_and_takes_it_once_writable() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let name = url.rsplit('/').next().unwrap().to_string();
    let read_only = |on: bool| {
        let sql = format!("ALTER DATABASE {name} SET default_transaction_read_only = {on}");
        server.psql("postgres", &sql).unwrap();
    };
    let dir = state();
    let inbox = replica(dir.path(), &url, &[]);
    // The database turns read-only under the running replica (as a primary
    // that became a standby): its sessions are cut, and the new ones it
    // opens are read-only.
    read_only(true);
    let cut = format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{name}'"
    );
    server.psql("postgres", &cut).unwrap();
    let asking = || {
        let mut asker = command(
            dir.path(),
            &["ask", "--ui", "inbox", "--timeout", "60", "-"],
        );
        run_with_input_within(&mut asker, DATABASE.as_bytes(), Duration::from_secs(5))
    };
    for _ in 0..2 {
        let (code, out) = asking();
        assert_error(
            (code, out.clone()),
            "STORE_ERROR",
            "the inbox's store refuses writes: read-only (PostgreSQL: cannot execute ",
        );
        assert_error(
            (code, out),
            "STORE_ERROR",
            " in a read-only transaction (25006)); point the inbox at a writable (primary) database, then try again (every question stored before is kept)",
        );
    }
    // Writable again: the next call opens a new session, which is.
    read_only(false);
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let id = asker.id.clone();
    let (code, out) = run(dir.path(), &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(asker.finish(), (0, answered(&id, 2)));
    let said = inbox.stop();
    let refusing: Vec<&str> = said
        .lines()
        .filter(|line| line.contains("refuses writes"))
        .collect();
    assert_eq!(refusing.len(), 1, "{said}");
    assert!(
        refusing[0].starts_with(
            "ask_user inbox: the store refuses writes: read-only (PostgreSQL: cannot execute "
        ) && refusing[0].ends_with(
            " in a read-only transaction (25006)); new questions and answers get STORE_ERROR until someone acts (point the inbox at a writable (primary) database); every question stored before is kept"
        ),
        "{said}"
    );
}

fn postgres_stopped_for_5_s_loses_nothing_and_every_change_arrives_after() {
    // A server of this test's own: it is stopped.
    let server = harness::require(Server::start(), postgres::MISSING);
    let (dir_a, a, dir_b, b) = two_replicas(&server, &[]);
    let askers: Vec<Asker> = (0..3)
        .map(|_| Asker::ask(dir_a.path(), DATABASE, &[]))
        .collect();
    until(SOON, "B lists the three", || b.list().len() == 3);
    #[cfg(target_os = "linux")]
    let cpu_before = common::process::cpu_ticks(a.child.id());
    server.stop();
    std::thread::sleep(Duration::from_secs(5));
    // Reconnecting backs off (up to 2 s): the outage costs no CPU.
    #[cfg(target_os = "linux")]
    {
        let spent = common::process::cpu_ticks(a.child.id()) - cpu_before;
        assert!(spent < 50, "{spent} ticks of CPU in a 5 s outage");
    }
    for asker in &askers {
        // Still waiting.
        assert!(listed(&a.list(), &asker.id).is_some());
    }
    server.run();
    // Answered on B (the first call after the outage finds a new connection).
    let mut answers = Vec::new();
    for (n, asker) in askers.iter().enumerate() {
        let reply = 1 + n % 2;
        let (code, out) = run(
            dir_b.path(),
            &["inbox", "answer", &asker.id, "--reply", &reply.to_string()],
        );
        assert_eq!(code, 0, "{out}");
        answers.push(reply);
    }
    for (asker, reply) in askers.into_iter().zip(answers) {
        let id = asker.id.clone();
        assert_eq!(asker.finish(), (0, answered(&id, reply)));
    }
    // A question asked on B after the outage reaches A's list: A listens again.
    let late = Asker::ask(dir_b.path(), DATABASE, &[]);
    until(SOON, "A lists B's new question", || {
        listed(&a.list(), &late.id).is_some()
    });
    drop(late);
    // The outage is said once when it starts and once when it ends, not at
    // every try in between.
    let said = a.stop();
    let lost = said.matches("ask_user inbox: lost ").count();
    let again = said.matches("ask_user inbox: listening on ").count();
    assert_eq!((lost, again), (1, 1), "{said}");
    b.stop();
}

fn an_unreachable_store_is_a_clear_error_at_start() {
    let dir = state();
    let (code, out) = run(
        dir.path(),
        &[
            "inbox",
            "--port",
            "0",
            "--store",
            "postgres://ask:secret@127.0.0.1:1/inbox",
        ],
    );
    assert_eq!(code, 1, "{out}");
    let document: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(document["error"]["code"], "STORE_ERROR");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the inbox cannot open its store postgres://127.0.0.1:1/inbox (PostgreSQL: error connecting to server: "
        ),
        "{message}"
    );
    assert!(
        !message.contains("secret"),
        "no password in messages: {message}"
    );
    // A tokens file that cannot be used: the same error, naming file and line.
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "person Ada short\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let (code, out) = run(
        dir.path(),
        &["inbox", "--port", "0", "--tokens", tokens.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}");
    let document: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(document["error"]["code"], "WEB_ERROR");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("tokens, line 1: a token is 32 to 512 visible ASCII characters"),
        "{message}"
    );
}

/// A GET without the token, as a load balancer sends it.
fn probe(inbox: &Inbox, path: &str, host: &str) -> Response {
    page::send(inbox.port, "GET", path, &[("Host", host)], b"")
}

fn healthz_and_readyz_need_no_token_and_readyz_follows_the_store() {
    // SQLite: both up, with no token; nothing about any question is said.
    let dir = state();
    let local = Inbox::start(dir.path());
    let host = local.host();
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let health = probe(&local, "/healthz", &host);
    assert_eq!(
        (health.status, health.body.as_str()),
        (200, r#"{"status":"ok"}"#)
    );
    let ready = probe(&local, "/readyz", &host);
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (200, r#"{"status":"ready","store":"sqlite"}"#)
    );
    assert!(!ready.body.contains(&asker.id));
    // Still the Host check (DNS rebinding), and only GET; no other route
    // opens without the token.
    assert_eq!(probe(&local, "/healthz", "evil.example").status, 403);
    let post = page::send(local.port, "POST", "/healthz", &[("Host", &host)], b"{}");
    assert_eq!(post.status, 401);
    for path in ["/api/questions", "/metrics", "/api/history", "/healthz/x"] {
        assert_eq!(probe(&local, path, &host).status, 401, "{path}");
    }
    // With the token: the probes take GET only (405), and an unknown path is 404.
    let post = call(&local, &local.token, "POST", "/readyz", "{}");
    assert_eq!(post.status, 405, "{}", post.body);
    assert_eq!(
        call(&local, &local.token, "GET", "/nowhere", "").status,
        404
    );
    // A question's verb with another method is 405; an unknown verb, 404.
    let question = format!("/api/questions/{}", asker.id);
    for (method, verb, status) in [
        ("GET", "reply", 405),
        ("PUT", "wait", 405),
        ("GET", "nothing", 404),
    ] {
        let got = call(
            &local,
            &local.token,
            method,
            &format!("{question}/{verb}"),
            "",
        );
        assert_eq!(got.status, status, "{method} {verb}: {}", got.body);
    }
    drop(asker);
    local.stop();

    // PostgreSQL: unready while the database is down, ready again after.
    let server = harness::require(Server::start(), postgres::MISSING);
    let url = server.new_database();
    let dir = state();
    let replica = replica(dir.path(), &url, &[]);
    let host = replica.host();
    let ready = || probe(&replica, "/readyz", &host);
    assert_eq!(
        (ready().status, ready().body),
        (200, r#"{"status":"ready","store":"postgres"}"#.to_string())
    );
    server.stop();
    until(SOON, "readyz says 503", || ready().status == 503);
    assert_eq!(ready().body, r#"{"status":"unready","store":"postgres"}"#);
    assert_eq!(
        probe(&replica, "/healthz", &host).status,
        200,
        "alive meanwhile"
    );
    server.run();
    until(SOON, "readyz says 200 again", || ready().status == 200);
    replica.stop();
}

/// Two replicas with one token (B's state folder gets A's token file), and
/// three askers given both addresses, A first, each with its question asked.
struct Pair {
    server: &'static Server,
    url: String,
    a: Inbox,
    b: Inbox,
    dir_b: tempfile::TempDir,
    askers: Vec<Asker>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn two_replicas_and_three_askers_on_the_first() -> Pair {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, askers_dir) = (state(), state(), state());
    let a = replica(dir_a.path(), &url, &[]);
    std::fs::copy(dir_a.path().join("token"), dir_b.path().join("token")).unwrap();
    let b = replica(dir_b.path(), &url, &[]);
    assert_eq!(a.token, b.token);
    let both = format!("http://{},http://{}", a.host(), b.host());
    let askers: Vec<Asker> = (0..3)
        .map(|_| {
            let mut asking = command(askers_dir.path(), &["ask", "--ui", "inbox", "-"]);
            asking
                .env("ASK_USER_INBOX", &both)
                .env("ASK_USER_TOKEN", &a.token);
            Asker::spawn(asking, DATABASE)
        })
        .collect();
    until(SOON, "B lists the three", || b.list().len() == 3);
    Pair {
        server,
        url,
        a,
        b,
        dir_b,
        askers,
        _dirs: (dir_a, askers_dir),
    }
}

fn kill_9_one_replica_under_three_askers_and_each_finds_its_question_on_the_next() {
    let Pair {
        server,
        url,
        a,
        b,
        dir_b,
        askers,
        _dirs,
    } = two_replicas_and_three_askers_on_the_first();
    a.kill9();
    // Only B is left: each asker's answer can only reach it through B.
    let mut expected = Vec::new();
    for (n, asker) in askers.iter().enumerate() {
        let reply = 1 + n % 2;
        let (code, out) = run(
            dir_b.path(),
            &["inbox", "answer", &asker.id, "--reply", &reply.to_string()],
        );
        assert_eq!(code, 0, "{out}");
        expected.push(answered(&asker.id, reply));
    }
    for (asker, expected) in askers.into_iter().zip(expected) {
        assert_eq!(asker.finish(), (0, expected));
    }
    // Nothing was asked twice: three questions in the store, all answered.
    let name = url.rsplit('/').next().unwrap();
    assert_eq!(
        server.psql(
            name,
            "SELECT count(*) || ' ' || count(outcome) FROM questions"
        ),
        Ok("3 3".to_string())
    );
    b.stop();
}

/// A request with `token` as its bearer (and, for a POST, the inbox's own
/// Origin and JSON), as an agent or a script sends it.
fn call(inbox: &Inbox, token: &str, method: &str, path: &str, body: &str) -> Response {
    let host = inbox.host();
    let origin = format!("http://{host}");
    let bearer = format!("Bearer {token}");
    let mut headers = vec![("Host", host.as_str()), ("Authorization", bearer.as_str())];
    if method == "POST" {
        headers.push(("Origin", origin.as_str()));
        headers.push(("Content-Type", "application/json"));
    }
    page::send(inbox.port, method, path, &headers, body.as_bytes())
}

fn error_code(response: &Response) -> String {
    let document: Value = serde_json::from_str(&response.body)
        .unwrap_or_else(|e| panic!("{e}: {} {}", response.status, response.body));
    document["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn person_and_asker_tokens_do_what_their_role_allows_and_nothing_else() {
    const ADA: &str = "ada0ada0ada0ada0ada0ada0ada0ada0";
    const CI: &str = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1";
    const OTHER: &str = "0th3r0th3r0th3r0th3r0th3r0th3r00";
    let dir = state();
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        format!("# the team\nperson Ada {ADA}\nasker ci {CI}\nasker other {OTHER}\n"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let inbox = Inbox::start_with(
        dir.path(),
        &["--port", "0", "--tokens", tokens.to_str().unwrap()],
    );
    let address = format!("http://{}", inbox.host());
    let as_holder = |token: &str, args: &[&str]| {
        let mut command = command(state().path(), args);
        command
            .env("ASK_USER_INBOX", &address)
            .env("ASK_USER_TOKEN", token);
        command
    };

    // An asker token asks, and its asker waits.
    let asker = Asker::spawn(as_holder(CI, &["ask", "--ui", "inbox", "-"]), DATABASE);
    let id = asker.id.clone();
    // ... and may do nothing else: 403, a FORBIDDEN document.
    for (method, path, body) in [
        ("GET", "/api/questions".to_string(), ""),
        ("GET", "/api/history".to_string(), ""),
        ("GET", "/api/events".to_string(), ""),
        ("GET", "/metrics".to_string(), ""),
        ("GET", "/?token=x".to_string(), ""),
        (
            "POST",
            format!("/api/questions/{id}/answer"),
            r#"{"answers":[{"optionIds":["1"]}]}"#,
        ),
        (
            "POST",
            format!("/api/questions/{id}/reply"),
            r#"{"replies":["1"]}"#,
        ),
        ("POST", format!("/api/questions/{id}/cancel"), "{}"),
        ("POST", format!("/api/questions/{id}/dismiss"), "{}"),
        (
            "POST",
            "/mcp".to_string(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        ),
    ] {
        let reply = call(&inbox, CI, method, &path, body);
        assert_eq!(
            (reply.status, error_code(&reply)),
            (403, "FORBIDDEN".into()),
            "{method} {path}"
        );
        assert!(
            reply.body.contains("holds an asker's token"),
            "{}",
            reply.body
        );
    }
    // From the command line too: exit 1 and the document.
    let out = as_holder(CI, &["inbox", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(document["error"]["code"], "FORBIDDEN", "{document}");
    // Another asker cannot wait for, leave or take over ci's question: to it,
    // the question does not exist.
    let wait = call(
        &inbox,
        OTHER,
        "GET",
        &format!("/api/questions/{id}/wait"),
        "",
    );
    assert_eq!(
        (wait.status, error_code(&wait)),
        (404, "UNKNOWN_QUESTION".into())
    );
    let leave = call(
        &inbox,
        OTHER,
        "POST",
        &format!("/api/questions/{id}/leave"),
        r#"{"reason":"cancelled"}"#,
    );
    assert_eq!(
        (leave.status, error_code(&leave)),
        (404, "UNKNOWN_QUESTION".into())
    );
    let mine = r#"{"key":"k-ci-1","input":{"question":"Mine?","options":["a","b"]}}"#;
    let reply = call(&inbox, CI, "POST", "/api/ask", mine);
    assert_eq!(reply.status, 201, "{}", reply.body);
    let taken = call(&inbox, OTHER, "POST", "/api/ask", mine);
    assert_eq!(
        (taken.status, error_code(&taken)),
        (403, "FORBIDDEN".into()),
        "{}",
        taken.body
    );

    // A wrong token: 401, as before.
    assert_eq!(
        call(&inbox, &"f".repeat(32), "GET", "/api/questions", "").status,
        401
    );

    // A person token lists, answers and reads history, and may not ask.
    let listed = call(&inbox, ADA, "GET", "/api/questions", "");
    assert_eq!(listed.status, 200);
    assert!(listed.body.contains(&id));
    let ask = call(
        &inbox,
        ADA,
        "POST",
        "/api/ask",
        r#"{"key":"k-ada","input":{"question":"?","options":["a","b"]}}"#,
    );
    assert_eq!((ask.status, error_code(&ask)), (403, "FORBIDDEN".into()));
    assert!(ask.body.contains("holds a person's token"), "{}", ask.body);
    let out = as_holder(ADA, &["inbox", "answer", &id, "--reply", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        asker.finish(),
        (
            0,
            answered_by(
                &id,
                2,
                json!({"kind":"person","name":"Ada","channel":"cli"})
            )
        )
    );
    // History records the person, by name; the page shows it (decidedBy).
    let out = as_holder(ADA, &["inbox", "history"]).output().unwrap();
    let entry: Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (&entry["inboxId"], &entry["decidedBy"]),
        (&json!(id), &json!("Ada"))
    );
    // The inbox's own token keeps every right, and decides unnamed.
    let own = call(&inbox, &inbox.token, "GET", "/api/history", "");
    assert_eq!(own.status, 200);
    inbox.stop();
}

/// [`until`], polling every 100 ms: requests refused on the way count toward
/// the tokenless limit (100 a minute), which fast polling would reach.
fn slowly_until(limit: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !condition() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `inbox token add` on the shared database: both replicas take the token
/// at once (a notice: within 2.5 s, under their 5 s re-read), history names its holder, and
/// `token remove` turns it away everywhere.
fn a_token_kept_in_the_store_works_on_every_replica_at_once_until_removed() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    let a = replica(dir_a.path(), &url, &[]);
    let b = replica(dir_b.path(), &url, &[]);
    let (code, added) = run(
        admin.path(),
        &["inbox", "token", "add", "person", "Eve", "--store", &url],
    );
    assert_eq!(code, 0, "{added}");
    let added: Value = serde_json::from_str(&added).unwrap();
    assert_eq!(
        (&added["name"], &added["role"]),
        (&json!("Eve"), &json!("person"))
    );
    let eve = added["token"].as_str().unwrap().to_string();
    assert_eq!(eve.len(), 64);
    // Under the replicas' own 5 s re-read: the notice carried it.
    for inbox in [&a, &b] {
        slowly_until(
            Duration::from_millis(2500),
            "Eve's token to be taken",
            || call(inbox, &eve, "GET", "/api/questions", "").status == 200,
        );
    }
    // The store keeps no token, only its digest; `token list` never shows it.
    let (code, listed) = run(admin.path(), &["inbox", "token", "list", "--store", &url]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(
        (&listed["name"], &listed["role"]),
        (&json!("Eve"), &json!("person"))
    );
    assert!(!listed.to_string().contains(&eve));
    // Eve answers on B a question asked on A; history on A names her.
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let id = asker.id.clone();
    until(SOON, "the question on B", || {
        call(&b, &eve, "GET", "/api/questions", "")
            .body
            .contains(&id)
    });
    let answer = call(
        &b,
        &eve,
        "POST",
        &format!("/api/questions/{id}/answer"),
        r#"{"answers":[{"optionIds":["2"]}]}"#,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        asker.finish(),
        (
            0,
            answered_by(
                &id,
                2,
                json!({"kind":"person","name":"Eve","channel":"page"})
            )
        )
    );
    let history = call(&a, &eve, "GET", "/api/history", "");
    let entries: Value = serde_json::from_str(&history.body).unwrap();
    assert_eq!(
        (&entries[0]["inboxId"], &entries[0]["decidedBy"]),
        (&json!(id), &json!("Eve"))
    );
    // A person token does not ask.
    let ask = call(
        &a,
        &eve,
        "POST",
        "/api/ask",
        r#"{"key":"k-eve","input":{"question":"?","options":["a","b"]}}"#,
    );
    assert_eq!((ask.status, error_code(&ask)), (403, "FORBIDDEN".into()));
    // Removed: turned away on every replica, at once.
    let (code, said) = run(
        admin.path(),
        &["inbox", "token", "remove", "Eve", "--store", &url],
    );
    assert_eq!((code, said.as_str()), (0, ""));
    for inbox in [&a, &b] {
        slowly_until(
            Duration::from_millis(2500),
            "Eve's token to be refused",
            || call(inbox, &eve, "GET", "/api/questions", "").status == 401,
        );
    }
}

fn sigterm_drains_a_replica_its_askers_move_to_the_next_and_it_exits_within_the_bound() {
    let Pair {
        server,
        url,
        a,
        b,
        dir_b,
        askers,
        _dirs: (_dir_a, askers_dir),
    } = two_replicas_and_three_askers_on_the_first();
    // SIGTERM: A drains. /readyz says so at once (a load balancer stops
    // sending it anything), and a new ask gets 503, NO_INBOX, Retry-After.
    let signalled = Instant::now();
    common::inbox::signal(a.child.id(), "TERM");
    let host = a.host();
    until(SOON, "A's readyz says draining", || {
        probe(&a, "/readyz", &host).status == 503
    });
    assert_eq!(
        probe(&a, "/readyz", &host).body,
        r#"{"status":"draining","store":"postgres"}"#
    );
    let ask = r#"{"key":"k-during-the-drain","input":{"question":"Now?","options":["a","b"]}}"#;
    let refused = call(&a, &a.token, "POST", "/api/ask", ask);
    assert_eq!(
        (refused.status, error_code(&refused)),
        (503, "NO_INBOX".to_string()),
        "{}",
        refused.body
    );
    assert_eq!(refused.header("Retry-After"), Some("1"));
    assert!(
        refused
            .body
            .contains("this inbox replica is stopping and takes no new question or wait"),
        "{}",
        refused.body
    );
    // Everything else is still served meanwhile.
    assert_eq!(a.list().len(), 3);
    // An asker given both addresses, A first, asks while A drains (or, on a
    // slow machine, just after): A refuses it or is gone, and the asker asks
    // B. (The asker's handling of the 503 itself has its own unit tests in
    // crates/inbox/src/asker.rs; this needs no race against A's 1 s linger.)
    let both = format!("http://{},http://{}", a.host(), b.host());
    let mut asking = command(askers_dir.path(), &["ask", "--ui", "inbox", "-"]);
    asking
        .env("ASK_USER_INBOX", &both)
        .env("ASK_USER_TOKEN", &a.token);
    let (child, mut stderr, mut line) = spawn_asking(&mut asking, DATABASE);
    // Refused by A, it says it retries and moves on, then where it asked.
    if !line.contains("asked in the inbox") {
        use std::io::BufRead as _;
        assert!(
            line.starts_with(&format!(
                "ask_user: the inbox at http://{} cannot store the question yet (",
                a.host()
            )),
            "{line}"
        );
        line.clear();
        stderr.read_line(&mut line).unwrap();
        assert!(
            line.starts_with(&format!(
                "ask_user: the inbox replica at http://{}",
                a.host()
            )),
            "{line}"
        );
        line.clear();
        stderr.read_line(&mut line).unwrap();
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    assert!(
        line.contains(&format!("asked in the inbox (http://{}/)", b.host())),
        "{line}"
    );
    let id = line
        .split("question ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_string();
    let late = Asker { child, id };
    // A exits 0 within the drain's bound, nothing on stdout, inbox.json
    // removed. Its waits ended at once, so it stops after its 1 s linger
    // (about 1.05 s here), and a drain never passes its 5 s limit.
    a.stopped();
    let took = signalled.elapsed();
    assert!(took < Duration::from_secs(6), "the drain took {took:?}");
    // The askers wait on B now: none is marked gone there, and each gets the
    // answer given through B.
    assert!(b.list().iter().all(|q| q.get("askerGone").is_none()));
    for asker in askers.into_iter().chain([late]) {
        let id = asker.id.clone();
        let (code, out) = run(dir_b.path(), &["inbox", "answer", &id, "--reply", "1"]);
        assert_eq!(code, 0, "{out}");
        assert_eq!(asker.finish(), (0, answered(&id, 1)));
    }
    // Nothing was asked twice: four questions in the store, all answered.
    let name = url.rsplit('/').next().unwrap();
    assert_eq!(
        server.psql(
            name,
            "SELECT count(*) || ' ' || count(outcome) FROM questions"
        ),
        Ok("4 4".to_string())
    );
    b.stop();
}

/// The samples of metric `name` in `/metrics` text, as (labels, value).
fn samples(text: &str, name: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, labels) = match series.split_once('{') {
                Some((metric, labels)) => (metric, labels.trim_end_matches('}')),
                None => (series, ""),
            };
            (metric == name).then(|| (labels.to_string(), value.parse().unwrap()))
        })
        .collect()
}

/// `mcp_store_latency_ms_count` for store operation `op` (0 before its first call).
fn store_calls(text: &str, op: &str) -> f64 {
    let label = format!("op=\"{op}\"");
    samples(text, "mcp_store_latency_ms_count")
        .into_iter()
        .find(|(labels, _)| *labels == label)
        .map_or(0.0, |(_, n)| n)
}

fn metrics_count_the_replicas_on_the_store_and_time_its_calls() {
    // A server of this test's own: it is stopped.
    let server = harness::require(Server::start(), postgres::MISSING);
    let (dir_a, a, _dir_b, b) = two_replicas(&server, &[]);
    let metrics = || {
        let scraped = call(&a, &a.token, "GET", "/metrics", "");
        assert_eq!(scraped.status, 200, "{}", scraped.body);
        scraped.body
    };
    // Two replicas on the database, as A counts them (each once its
    // listening connection is open, moments after it starts); the store
    // reachable.
    until(SOON, "A counts two replicas", || {
        samples(&metrics(), "mcp_inbox_replicas") == [(r#"store="postgres""#.to_string(), 2.0)]
    });
    let before = metrics();
    assert_eq!(
        samples(&before, "mcp_store_reachable"),
        [(r#"store="postgres""#.to_string(), 1.0)]
    );
    assert!(before.contains("# TYPE mcp_store_latency_ms histogram\n"));
    assert!(before.contains("# TYPE mcp_inbox_replicas gauge\n"));
    // An ask on A, answered on A: one more timed `ask` and `decide`, each
    // in the histogram's buckets, with a sum of milliseconds.
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    let path = format!("/api/questions/{}/reply", asker.id);
    assert_eq!(a.request("POST", &path, r#"{"replies":["1"]}"#).status, 200);
    let id = asker.id.clone();
    assert_eq!(asker.finish(), (0, answered(&id, 1)));
    let after = metrics();
    for op in ["ask", "decide"] {
        assert_eq!(
            store_calls(&after, op),
            store_calls(&before, op) + 1.0,
            "{op}: {after}"
        );
        let label = format!(r#"op="{op}",le="+Inf""#);
        assert!(
            samples(&after, "mcp_store_latency_ms_bucket")
                .contains(&(label, store_calls(&after, op))),
            "{after}"
        );
        let sum = samples(&after, "mcp_store_latency_ms_sum")
            .into_iter()
            .find(|(labels, _)| *labels == format!(r#"op="{op}""#))
            .unwrap()
            .1;
        assert!(sum > 0.0 && sum < 10_000.0, "{op}: {sum} ms");
    }
    // B stops: one replica left.
    b.stop();
    until(SOON, "A counts one replica", || {
        samples(&metrics(), "mcp_inbox_replicas") == [(r#"store="postgres""#.to_string(), 1.0)]
    });
    // The database stops: unreachable, and the count left out (with a
    // comment saying why) rather than guessed; back after.
    server.stop();
    until(SOON, "A's store is unreachable", || {
        samples(&metrics(), "mcp_store_reachable") == [(r#"store="postgres""#.to_string(), 0.0)]
    });
    let down = metrics();
    assert!(samples(&down, "mcp_inbox_replicas").is_empty(), "{down}");
    assert!(
        down.contains("\n# mcp_inbox_replicas left out: the store is unreachable"),
        "{down}"
    );
    server.run();
    until(SOON, "A counts itself again", || {
        samples(&metrics(), "mcp_inbox_replicas") == [(r#"store="postgres""#.to_string(), 1.0)]
    });
    a.stop();
}

/// Many asks and answers at once through two replicas, each on a pool of 4
/// connections (issue 40): each asker thread asks on one replica and has it
/// answered at once through the other, so that answers race the replicas'
/// notices. Every question is stored once and decided once, its events are
/// in order (asked, then decided, nothing between), and the replica it was
/// asked on hands its asker the answer (no question left pending in memory).
fn concurrent_asks_and_answers_through_two_pooled_replicas_lose_nothing_and_keep_each_order() {
    const THREADS: usize = 8;
    const EACH: usize = 15;
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let name = url.rsplit('/').next().unwrap().to_string();
    let (dir_a, dir_b) = (state(), state());
    let pool = ["--store-connections", "4"];
    let replicas = [
        replica(dir_a.path(), &url, &pool),
        replica(dir_b.path(), &url, &pool),
    ];
    let asked: Vec<(String, usize)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let replicas = &replicas;
                scope.spawn(move || {
                    let (on, through) = (t % 2, 1 - t % 2);
                    let mut ids = Vec::new();
                    for n in 0..EACH {
                        let body = json!({"key": format!("k{t}-{n}"),
                            "input": {"question": format!("Deploy {t}.{n}?"),
                                      "options": ["Yes", "No"]}});
                        let reply = replicas[on].request("POST", "/api/ask", &body.to_string());
                        assert_eq!(reply.status, 201, "{}", reply.body);
                        let id = serde_json::from_str::<Value>(&reply.body).unwrap()["inboxId"]
                            .as_str()
                            .unwrap()
                            .to_string();
                        let path = format!("/api/questions/{id}/reply");
                        let reply =
                            replicas[through].request("POST", &path, r#"{"replies":["1"]}"#);
                        assert_eq!(reply.status, 200, "{id}: {}", reply.body);
                        ids.push((id, on));
                    }
                    ids
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap())
            .collect()
    });
    assert_eq!(asked.len(), THREADS * EACH);
    // Each asker's replica has the answer for it.
    for (id, on) in &asked {
        let wait = replicas[*on].request("GET", &format!("/api/questions/{id}/wait"), "");
        assert_eq!(wait.status, 200, "{id}: {}", wait.body);
        assert!(
            wait.body.contains(r#""answered":true"#) && wait.body.contains(r#""Yes""#),
            "{id}: {}",
            wait.body
        );
    }
    for inbox in &replicas {
        until(SOON, "nothing pending on either replica", || {
            inbox.list().is_empty()
        });
    }
    // In the store: every question once, answered once, and its log exactly
    // "asked" then "decided".
    let sql = |query: &str| server.psql(&name, query).unwrap();
    assert_eq!(
        sql("SELECT count(*) FROM questions WHERE outcome = 'answered'"),
        (THREADS * EACH).to_string()
    );
    assert_eq!(
        sql("SELECT count(*) FROM questions"),
        (THREADS * EACH).to_string()
    );
    assert_eq!(
        sql(
            "SELECT count(*) FROM questions q WHERE (SELECT string_agg(kind, ',' ORDER BY seq) \
             FROM events e WHERE e.question = q.id) IS DISTINCT FROM 'asked,decided'"
        ),
        "0"
    );
    assert_eq!(
        sql(
            "SELECT count(*) FROM questions q WHERE (SELECT max(at) FROM events e \
             WHERE e.question = q.id AND kind = 'asked') > q.decided_at"
        ),
        "0"
    );
    let [a, b] = replicas;
    a.stop();
    b.stop();
}

fn store_connections_out_of_range_is_a_usage_error() {
    let dir = state();
    for n in ["0", "33", "four"] {
        let out = command(dir.path(), &["inbox", "--store-connections", n])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{n}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "invalid value '{n}' for '--store-connections <N>': \"{n}\" is out of range: give 1 to 32 connections"
            )),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// `--store-connections N`: N connections to the database a replica, plus
/// its listening one; the default is 4.
fn each_replica_opens_its_store_connections_and_one_to_listen() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let name = url.rsplit('/').next().unwrap().to_string();
    let others = || {
        server
            .psql(
                &name,
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
            .unwrap()
    };
    let (dir_a, dir_b) = (state(), state());
    let a = replica(dir_a.path(), &url, &["--store-connections", "3"]);
    until(SOON, "A's 3 + 1 connections", || others() == "4");
    let b = replica(dir_b.path(), &url, &[]);
    until(SOON, "B's default 4 + 1 more", || others() == "9");
    a.stop();
    b.stop();
    until(SOON, "none once both stopped", || others() == "0");
}

/// Issue #40's quorum: five persons vote at the same instant, through two
/// replicas, on a question that needs three; repeated. Each time exactly one
/// vote decides, the asker gets that one document, and it lists the three
/// votes that agreed (the late ones are refused, not kept).
fn quorum_votes_racing_through_two_replicas_count_once_and_decide_once() {
    const VOTERS: [&str; 5] = ["ada", "bob", "cy", "dee", "eve"];
    const THREE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"],
        "approvals":{"count":3}}"#;
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    let a = replica(dir_a.path(), &url, &[]);
    let b = replica(dir_b.path(), &url, &[]);
    let tokens: Vec<String> = VOTERS
        .iter()
        .map(|name| {
            let (code, added) = run(
                admin.path(),
                &["inbox", "token", "add", "person", name, "--store", &url],
            );
            assert_eq!(code, 0, "{added}");
            let added: Value = serde_json::from_str(&added).unwrap();
            added["token"].as_str().unwrap().to_string()
        })
        .collect();
    for inbox in [&a, &b] {
        for token in &tokens {
            slowly_until(Duration::from_secs(5), "the tokens to be taken", || {
                call(inbox, token, "GET", "/api/questions", "").status == 200
            });
        }
    }
    // `inbox answer` by a person: a vote, its receipt on stdout, the count on stderr.
    let asker = Asker::ask(dir_a.path(), THREE, &[]);
    let out = command(
        admin.path(),
        &["inbox", "answer", &asker.id, "--reply", "1"],
    )
    .env("ASK_USER_INBOX", format!("http://{}", b.host()))
    .env("ASK_USER_TOKEN", &tokens[0])
    .stdin(std::process::Stdio::null())
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let receipt: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        receipt,
        json!({"inboxId": asker.id, "vote": "recorded", "approvals": 1, "needed": 3,
               "voters": ["ada"]})
    );
    assert!(
        stderr.contains("vote recorded, 1 of 3 approvals (voted: ada)"),
        "{stderr}"
    );
    // The inbox's own token cannot vote.
    let path = format!("/api/questions/{}/reply", asker.id);
    let own = a.request("POST", &path, r#"{"replies":["1"]}"#);
    assert_eq!(
        (own.status, error_code(&own)),
        (403, "FORBIDDEN".to_string())
    );
    let (code, _) = run(dir_b.path(), &["inbox", "cancel", &asker.id]);
    assert_eq!(code, 0);
    assert_eq!(asker.finish().0, 130);

    for round in 0..3 {
        let asker = Asker::ask(dir_a.path(), THREE, &[]);
        until(SOON, "B lists the question", || {
            listed(&b.list(), &asker.id).is_some()
        });
        let path = format!("/api/questions/{}/reply", asker.id);
        let start = std::sync::Arc::new(std::sync::Barrier::new(VOTERS.len()));
        let voters: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(n, token)| {
                let inbox = if n % 2 == 0 { &a } else { &b };
                let (port, host) = (inbox.port, inbox.host());
                let (token, path, start) = (token.clone(), path.clone(), start.clone());
                std::thread::spawn(move || {
                    let origin = format!("http://{host}");
                    let bearer = format!("Bearer {token}");
                    let headers = [
                        ("Host", host.as_str()),
                        ("Authorization", bearer.as_str()),
                        ("Origin", origin.as_str()),
                        ("Content-Type", "application/json"),
                    ];
                    start.wait();
                    page::send(port, "POST", &path, &headers, br#"{"replies":["2"]}"#)
                })
            })
            .collect();
        let replies: Vec<Response> = voters.into_iter().map(|v| v.join().unwrap()).collect();
        let bodies: Vec<Value> = replies
            .iter()
            .map(|r| serde_json::from_str(&r.body).unwrap())
            .collect();
        let decided: Vec<&Value> = bodies.iter().filter(|b| b["answered"] == true).collect();
        let counted = bodies.iter().filter(|b| b["vote"] == "recorded").count();
        let late = replies
            .iter()
            .filter(|r| r.status == 409 && error_code(r) == "ALREADY_ANSWERED")
            .count();
        assert_eq!(
            (decided.len(), counted, late),
            (1, 2, 2),
            "round {round}: {bodies:?}"
        );
        let id = asker.id.clone();
        let (code, document) = asker.finish();
        assert_eq!(code, 0);
        assert_eq!(&document, decided[0], "round {round}");
        assert_eq!(document["answers"][0]["optionIds"], json!(["2"]));
        let votes = document["answeredBy"].as_array().unwrap();
        let mut names: Vec<&str> = votes.iter().map(|v| v["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 3, "{document}");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 3, "three distinct persons: {document}");
        assert!(
            votes
                .iter()
                .all(|v| v["kind"] == "person" && v["channel"] == "cli")
        );
        // Both replicas agree on the one outcome.
        for dir in [dir_a.path(), dir_b.path()] {
            let (_, out) = run(dir, &["inbox", "history", "--limit", "1"]);
            let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
            assert_eq!(
                (&entry["inboxId"], &entry["answer"]),
                (&json!(id), &document)
            );
        }
    }
    a.stop();
    b.stop();
}

/// The page of a question that needs approvals (headless Chromium): Ada's
/// page on B shows "0 of 2 approvals", her vote keeps the card and says
/// "1 of 2 approvals · voted: ada", and Bob's vote through A closes it.
fn a_quorum_card_counts_the_votes_of_every_replica_in_the_page() {
    const SCENARIO: &str = "inbox-quorum";
    let chromium = chromium(&["playwright-core"]);
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    let mut tokens = Vec::new();
    for name in ["ada", "bob"] {
        let (code, added) = run(
            admin.path(),
            &["inbox", "token", "add", "person", name, "--store", &url],
        );
        assert_eq!(code, 0, "{added}");
        let added: Value = serde_json::from_str(&added).unwrap();
        tokens.push(added["token"].as_str().unwrap().to_string());
    }
    let a = replica(dir_a.path(), &url, &[]);
    let b = replica(dir_b.path(), &url, &[]);
    let asker = Asker::ask(
        dir_a.path(),
        r#"{"question":"Which database?","options":["PostgreSQL","SQLite"],"approvals":{"count":2}}"#,
        &[],
    );
    until(SOON, "B lists the question", || {
        listed(&b.list(), &asker.id).is_some()
    });
    let page = format!("http://{}/?token={}", b.host(), tokens[0]);
    let mut browser = browser_at(&chromium, SCENARIO, &page);
    assert_eq!(browser.said_line(), "voted");
    let vote = call(
        &a,
        &tokens[1],
        "POST",
        &format!("/api/questions/{}/reply", asker.id),
        r#"{"replies":["1"]}"#,
    );
    assert_eq!(vote.status, 200, "{}", vote.body);
    go_on(SCENARIO);
    let said = browser.wait().assert_passed(SCENARIO);
    eprint!("{said}");
    let (code, document) = asker.finish();
    assert_eq!(code, 0);
    let names: Vec<&Value> = document["answeredBy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["name"])
        .collect();
    assert_eq!(names, [&json!("ada"), &json!("bob")], "{document}");
    assert_eq!(document["answeredBy"][0]["channel"], "page");
    a.stop();
    b.stop();
}

/// Addressing (issue #40) on PostgreSQL: a person token added with a group
/// is seen with its group by both replicas at once (the TOKENS_CHANGED
/// notice), a question asked on A with `to` shows it on B, and an asker
/// learns no names or groups on either replica.
fn a_persons_groups_reach_every_replica_and_an_asker_learns_none() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    let a = replica(dir_a.path(), &url, &[]);
    let b = replica(dir_b.path(), &url, &[]);
    let add = |args: &[&str]| {
        let mut all = vec!["inbox", "token", "add"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--store", &url]);
        let (code, added) = run(admin.path(), &all);
        assert_eq!(code, 0, "{added}");
        serde_json::from_str::<Value>(&added).unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let ci = add(&["asker", "ci"]);
    let ada = add(&["person", "Ada", "--group", "ops", "--group", "db"]);
    let me = json!({"name": "Ada", "groups": ["db", "ops"]});
    for inbox in [&a, &b] {
        slowly_until(
            Duration::from_millis(2500),
            "Ada's groups on every replica",
            || {
                let got = call(inbox, &ada, "GET", "/api/me", "");
                got.status == 200
                    && serde_json::from_str::<Value>(&got.body).ok() == Some(me.clone())
            },
        );
    }
    // An asker on A: a known and an unknown `to` alike; nothing to read.
    let ask = |key: &str, to: &str| {
        let body = json!({"key": key, "input": {"question": "Deploy?", "options": ["yes", "no"], "to": to}});
        call(&a, &ci, "POST", "/api/ask", &body.to_string())
    };
    let known = ask("k", "ops");
    let unknown = ask("u", "nobody-here");
    assert_eq!(
        (known.status, unknown.status),
        (201, 201),
        "{}",
        unknown.body
    );
    let keys = |body: &str| {
        serde_json::from_str::<Value>(body)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&known.body), keys(&unknown.body));
    for inbox in [&a, &b] {
        for path in [
            "/api/me",
            "/api/questions",
            "/api/history",
            "/api/events",
            "/metrics",
        ] {
            let got = call(inbox, &ci, "GET", path, "");
            assert_eq!(got.status, 403, "{path}: {}", got.body);
            assert!(
                !got.body.contains("Ada") && !got.body.contains("ops"),
                "{path}: {}",
                got.body
            );
        }
    }
    // B's page sees the question asked on A with its `to`.
    let id = serde_json::from_str::<Value>(&known.body).unwrap()["inboxId"]
        .as_str()
        .unwrap()
        .to_string();
    until(SOON, "the question on B", || {
        let listed = call(&b, &ada, "GET", "/api/questions", "");
        serde_json::from_str::<Value>(&listed.body)
            .ok()
            .and_then(|list| {
                list.as_array()?
                    .iter()
                    .find(|q| q["inboxId"] == json!(id))
                    .map(|q| q["to"] == json!("ops"))
            })
            .unwrap_or(false)
    });
}

/// The inbox serves on one thread; every route that calls the store runs
/// that call on tokio's blocking threads. A table locked by another session
/// holds a phone's claim (no token needed) and a person's away switch, each
/// on its own blocking thread, while `/healthz` and the owner's list are
/// answered at once. Before, the claim and the switch (and `/metrics`, the
/// links' routes, the sweep and the reading of tokens every 5 s) called the
/// store on the server's thread: one locked table held every request,
/// tokenless ones included, for as long as the lock.
fn store_calls_held_by_a_lock_hold_no_other_request() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let dir = state();
    let (code, out) = run(
        dir.path(),
        &["inbox", "token", "add", "person", "ada", "--store", &url],
    );
    assert_eq!(code, 0, "{out}");
    let ada: Value = serde_json::from_str(&out).unwrap();
    let ada = ada["token"].as_str().unwrap().to_string();
    let inbox = replica(dir.path(), &url, &[]);
    let host = inbox.host();
    let mut locker = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    let mut lock = locker.transaction().unwrap();
    lock.batch_execute("LOCK TABLE ask_user_tokens, ask_user_away IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let held = Instant::now();
    let port = inbox.port;
    let claim = std::thread::spawn(move || (page::claim(port, "ABCD-EFGH"), Instant::now()));
    let away = {
        let host = host.clone();
        let bearer = format!("Bearer {ada}");
        std::thread::spawn(move || {
            let response = page::send(
                port,
                "GET",
                "/api/away",
                &[("Host", host.as_str()), ("Authorization", bearer.as_str())],
                b"",
            );
            (response, Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    // Past 5 s: the inbox's own reading of the tokens and rules every 5 s
    // (which waits on the lock too) comes due meanwhile.
    for _ in 0..6 {
        let t0 = Instant::now();
        let health = probe(&inbox, "/healthz", &host);
        assert_eq!(health.status, 200, "{}", health.body);
        let listed = call(&inbox, &inbox.token, "GET", "/api/questions", "");
        assert_eq!(listed.status, 200, "{}", listed.body);
        assert!(
            t0.elapsed() < Duration::from_secs(1),
            "answered in {:?} while the store is locked",
            t0.elapsed()
        );
        std::thread::sleep(Duration::from_millis(1000));
    }
    assert!(
        !claim.is_finished() && !away.is_finished(),
        "both wait on the lock"
    );
    lock.rollback().unwrap();
    let (claimed, claimed_at) = claim.join().unwrap();
    let (switch, switched_at) = away.join().unwrap();
    // They waited for the lock, then were served as usual.
    assert!(claimed_at.duration_since(held) >= Duration::from_secs(6));
    assert!(switched_at.duration_since(held) >= Duration::from_secs(6));
    assert!(
        (400..500).contains(&claimed.status),
        "an unknown code: {} {}",
        claimed.status,
        claimed.body
    );
    assert_eq!(
        (switch.status, switch.body.as_str()),
        (200, r#"{"away":false}"#)
    );
    inbox.stop();
}
