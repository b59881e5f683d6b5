//! The store's own tests, run unchanged against both of its implementations:
//! each test below runs as `sqlite::NAME` (a file in a temporary folder) and
//! as `postgres::NAME` (a fresh database on a real PostgreSQL server,
//! tests/common/postgres.rs). Without PostgreSQL installed the `postgres::`
//! tests are ignored, and under CI they fail.
//!
//! "Two replicas" here are two stores open on the same place, each with its
//! own connection, as two inbox processes have.

mod common;

use std::any::Any;
use std::sync::{Arc, Barrier};

use ask_user::inbox::store::{
    self, Decided, Decision, Error, Escalated, Escalation, Event, Face, Location, Millis,
    NewQuestion, NewVote, Outcome, SCHEMA_VERSION, Source, Store, Stored, StoredRule, StoredToken,
    Tally, TokenRole, Voted, is_id, now_ms,
};
use common::harness;
use common::postgres;

/// Where a test's store lives, kept alive as long as the test runs.
struct Place {
    location: Location,
    /// The temporary folder of a SQLite store.
    _keep: Box<dyn Any>,
    /// Runs SQL past the store's code (for the rules the database enforces).
    raw: fn(&Location, &str) -> Result<(), String>,
}

impl Place {
    fn sqlite() -> Place {
        let dir = tempfile::tempdir().unwrap();
        Place {
            location: Location::Sqlite(dir.path().join("inbox.sqlite3")),
            _keep: Box::new(dir),
            raw: |location, sql| {
                let Location::Sqlite(path) = location else {
                    unreachable!()
                };
                let conn = rusqlite::Connection::open(path).map_err(|e| e.to_string())?;
                conn.execute_batch(sql).map_err(|e| e.to_string())
            },
        }
    }

    fn postgres() -> Place {
        let server = harness::require(postgres::shared(), postgres::MISSING);
        Place {
            location: Location::Postgres(server.new_database()),
            _keep: Box::new(()),
            raw: |location, sql| {
                let Location::Postgres(url) = location else {
                    unreachable!()
                };
                let mut client = ::postgres::Client::connect(url, ::postgres::NoTls)
                    .map_err(|e| e.to_string())?;
                client
                    .batch_execute(sql)
                    .map_err(|e| match e.as_db_error() {
                        Some(db) => db.message().to_string(),
                        None => e.to_string(),
                    })
            },
        }
    }

    /// A new connection to this store (another replica's, or after a restart).
    fn open(&self) -> Box<dyn Store> {
        store::open(&self.location).unwrap()
    }

    fn raw(&self, sql: &str) -> Result<(), String> {
        (self.raw)(&self.location, sql)
    }
}

/// Each test, once per store.
macro_rules! suite {
    ($($test:ident),+ $(,)?) => {
        #[allow(clippy::vec_init_then_push)] // a push per test and store, from the macro
        fn main() -> std::process::ExitCode {
            let mut tests: Vec<(&'static str, fn())> = Vec::new();
            $(
                tests.push((concat!("sqlite::", stringify!($test)), || $test(&Place::sqlite())));
                tests.push((concat!("postgres::", stringify!($test)), || $test(&Place::postgres())));
            )+
            tests.push((
                "postgres::a_restarted_server_is_reconnected_to_by_the_next_call",
                a_restarted_server_is_reconnected_to_by_the_next_call,
            ));
            tests.push((
                "postgres::a_session_opened_while_read_only_does_not_refuse_once_writable",
                a_session_opened_while_read_only_does_not_refuse_once_writable,
            ));
            tests.push((
                "postgres::one_connection_serves_call_after_call",
                one_connection_serves_call_after_call,
            ));
            tests.push((
                "postgres::a_transaction_the_database_refuses_runs_once",
                a_transaction_the_database_refuses_runs_once,
            ));
            tests.push((
                "postgres::a_decision_sent_again_exactly_is_still_now",
                a_decision_sent_again_exactly_is_still_now,
            ));
            tests.push((
                "postgres::each_statement_is_planned_once_per_connection",
                each_statement_is_planned_once_per_connection,
            ));
            tests.push((
                "postgres::notices_committed_together_are_handed_on_together",
                notices_committed_together_are_handed_on_together,
            ));
            tests.push((
                "postgres::many_questions_are_found_by_the_index_after_the_table_grew",
                many_questions_are_found_by_the_index_after_the_table_grew,
            ));
            harness::run(file!(), tests)
        }
    };
}

suite!(
    a_question_round_trips_and_lists_oldest_first,
    many_questions_are_read_in_one_call_each_once,
    a_retried_ask_finds_its_question,
    retries_racing_on_two_replicas_store_one_question,
    the_first_decision_wins_and_is_never_rewritten,
    twenty_answers_racing_on_two_replicas_one_outcome,
    what_was_acknowledged_is_there_after_reopening,
    asker_gone_marks_come_and_go_and_are_logged,
    history_is_the_decided_questions_newest_first_and_write_once,
    an_empty_store_is_created_at_the_current_schema,
    a_store_at_the_previous_schema_is_migrated_and_keeps_its_questions,
    a_store_at_schema_1_is_migrated_through_every_step,
    a_newer_schema_is_refused,
    who_asked_is_kept_and_written_once,
    named_tokens_are_kept_by_digest_once_per_name,
    a_person_tokens_groups_are_kept_sorted_once_each,
    the_link_key_is_made_once_and_shared_by_replicas_opening_together,
    the_faces_of_links_and_channels_are_stored_and_others_refused,
    votes_racing_on_two_replicas_count_once_and_decide_once,
    a_persons_second_vote_replaces_theirs_and_a_closed_question_takes_none,
    rules_are_kept_once_per_id_and_away_keeps_its_first_since,
    an_escalation_step_racing_on_two_replicas_is_kept_once_and_never_for_a_closed_question,
);

fn escalation(question: &str, step: u32, at: Millis) -> Escalation {
    Escalation {
        question: question.to_string(),
        step,
        after: i64::from(step) * 1_000,
        notify: format!("team{step}"),
        at,
    }
}

fn an_escalation_step_racing_on_two_replicas_is_kept_once_and_never_for_a_closed_question(
    place: &Place,
) {
    const REPLICAS: usize = 6;
    let mut store = place.open();
    let (id, _) = store.ask(&question("ladder", 1_000)).unwrap();
    let (other, _) = store.ask(&question("other", 1_000)).unwrap();
    for step in 1..=2u32 {
        let start = Arc::new(Barrier::new(REPLICAS));
        let racers: Vec<_> = (0..REPLICAS)
            .map(|n| {
                let mut own = place.open();
                let (start, id) = (Arc::clone(&start), id.clone());
                std::thread::spawn(move || {
                    start.wait();
                    own.escalate(&escalation(&id, step, 5_000 + n as Millis))
                        .unwrap()
                })
            })
            .collect();
        let results: Vec<Escalated> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let fired = results.iter().filter(|r| **r == Escalated::Fired).count();
        assert_eq!(fired, 1, "step {step}: {results:?}");
        assert_eq!(
            results.iter().filter(|r| **r == Escalated::Already).count(),
            REPLICAS - 1
        );
    }
    let kept = place
        .open()
        .escalations(&[id.clone(), other.clone()])
        .unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!((kept[0].step, kept[1].step), (1, 2));
    assert!(kept.iter().all(|e| e.question == id));
    assert_eq!(kept[1].notify, "team2");
    assert_eq!(kept[1].after, 2_000);
    assert!((5_000..5_000 + REPLICAS as Millis).contains(&kept[0].at));
    // A decided question takes no step; an unknown id neither.
    let decided = decision(Outcome::Answered, Face::Page, "{}");
    assert_eq!(store.decide(&other, &decided).unwrap(), Decided::Now);
    assert_eq!(
        store.escalate(&escalation(&other, 1, 9_000)).unwrap(),
        Escalated::Closed
    );
    assert_eq!(
        store.escalate(&escalation("zzzzzzzz", 1, 9_000)).unwrap(),
        Escalated::Closed
    );
    assert!(store.escalations(&[other]).unwrap().is_empty());
    // The steps stay with the question after its outcome (history shows them).
    assert_eq!(store.decide(&id, &decided).unwrap(), Decided::Now);
    assert_eq!(store.escalations(&[id]).unwrap(), kept);
}

fn question(key: &str, asked_at: Millis) -> NewQuestion {
    NewQuestion {
        ask_key: key.into(),
        input: r#"{"question":"Deploy?","options":["yes","no"]}"#.into(),
        prompt: r#"{"tool":"ask_user"}"#.into(),
        source: Source {
            name: Some("claude-code".into()),
            cwd: Some("/src/app".into()),
            pid: Some(4242),
        },
        asked_at,
        expires_at: Some(asked_at + 60_000),
        asked_by: None,
    }
}

fn decision(outcome: Outcome, face: Face, document: &str) -> Decision {
    Decision {
        outcome,
        face,
        document: document.into(),
        at: now_ms(),
        by: None,
    }
}

fn kinds(events: Vec<Event>) -> Vec<(String, Option<String>)> {
    events.into_iter().map(|e| (e.kind, e.detail)).collect()
}

fn a_question_round_trips_and_lists_oldest_first(place: &Place) {
    let mut store = place.open();
    let (late, created) = store.ask(&question("k2", 2_000)).unwrap();
    assert!(created);
    let (early, _) = store.ask(&question("k1", 1_000)).unwrap();
    let (tie, _) = store.ask(&question("k3", 2_000)).unwrap();
    assert!(
        is_id(&late) && is_id(&early) && late != early,
        "{late} {early}"
    );
    let pending: Vec<String> = store.pending().unwrap().into_iter().map(|q| q.id).collect();
    assert_eq!(
        pending,
        [early.clone(), late.clone(), tie],
        "by time, then as stored"
    );
    let stored = store.get(&early).unwrap().unwrap();
    assert_eq!(
        stored,
        Stored {
            id: early.clone(),
            question: question("k1", 1_000),
            gone: None,
            decision: None,
        }
    );
    assert_eq!(store.get("zzzzzzzz").unwrap(), None);
    // A question without a source or a time limit keeps its NULLs.
    let bare = NewQuestion {
        source: Source::default(),
        expires_at: None,
        ..question("bare", 3_000)
    };
    let (id, _) = store.ask(&bare).unwrap();
    assert_eq!(store.get(&id).unwrap().unwrap().question, bare);
}

/// A replica reads back the questions of the notices that arrived together
/// in one call: each stored one once (an id named twice, a question
/// decided since), ids not stored left out.
fn many_questions_are_read_in_one_call_each_once(place: &Place) {
    let mut store = place.open();
    let ids: Vec<String> = (0..4)
        .map(|n| store.ask(&question(&format!("k{n}"), 1_000 + n)).unwrap().0)
        .collect();
    let done = decision(Outcome::Answered, Face::Cli, "{}");
    assert_eq!(store.decide(&ids[1], &done).unwrap(), Decided::Now);
    let asked = [&ids[3], &ids[0], "zzzzzzzz", &ids[1], &ids[3]].map(String::from);
    let mut found = store.get_many(&asked).unwrap();
    found.sort_by(|a, b| a.id.cmp(&b.id));
    let mut expected: Vec<Stored> = [&ids[0], &ids[1], &ids[3]]
        .iter()
        .map(|id| store.get(id).unwrap().unwrap())
        .collect();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(found, expected);
    assert_eq!(
        found
            .iter()
            .filter(|q| q.decision == Some(done.clone()))
            .count(),
        1
    );
    assert_eq!(store.get_many(&[]).unwrap(), []);
    assert_eq!(store.get_many(&["zzzzzzzz".into()]).unwrap(), []);
}

fn a_retried_ask_finds_its_question(place: &Place) {
    let mut store = place.open();
    let (id, created) = store.ask(&question("same", 1_000)).unwrap();
    assert!(created);
    assert_eq!(
        store.ask(&question("same", 5_000)).unwrap(),
        (id.clone(), false)
    );
    assert_eq!(store.pending().unwrap().len(), 1);
    // From another replica too.
    assert_eq!(
        place.open().ask(&question("same", 6_000)).unwrap(),
        (id, false)
    );
}

fn retries_racing_on_two_replicas_store_one_question(place: &Place) {
    for round in 0..10 {
        let start = Arc::new(Barrier::new(4));
        let askers: Vec<_> = (0..4)
            .map(|_| {
                let mut own = place.open();
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    own.ask(&question(&format!("race{round}"), 1_000)).unwrap()
                })
            })
            .collect();
        let results: Vec<(String, bool)> = askers.into_iter().map(|a| a.join().unwrap()).collect();
        let created = results.iter().filter(|(_, created)| *created).count();
        assert_eq!(created, 1, "round {round}: {results:?}");
        assert!(
            results.iter().all(|(id, _)| *id == results[0].0),
            "one id: {results:?}"
        );
    }
    assert_eq!(place.open().pending().unwrap().len(), 10);
}

fn the_first_decision_wins_and_is_never_rewritten(place: &Place) {
    let mut store = place.open();
    let (id, _) = store.ask(&question("k", 1_000)).unwrap();
    let first = Decision {
        by: Some("Ada".into()),
        ..decision(Outcome::Answered, Face::Page, r#"{"answered":true}"#)
    };
    assert_eq!(store.decide(&id, &first).unwrap(), Decided::Now);
    let second = decision(Outcome::Cancelled, Face::Cli, r#"{"cancelled":true}"#);
    assert_eq!(
        store.decide(&id, &second).unwrap(),
        Decided::Already(first.clone())
    );
    assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(first));
    assert!(store.pending().unwrap().is_empty());
    assert_eq!(store.decide("00000000", &second).unwrap(), Decided::Unknown);
    // Even SQL that skips the code cannot rewrite an outcome or an event.
    for change in [
        "UPDATE questions SET outcome = 'dismissed'",
        "UPDATE questions SET document = '{}'",
        "UPDATE questions SET decided_by = 'Mallory'",
    ] {
        let err = place.raw(change).unwrap_err();
        assert!(err.contains("written once"), "{change}: {err}");
    }
    let err = place.raw("UPDATE events SET kind = 'asked'").unwrap_err();
    assert!(err.contains("never rewritten"), "{err}");
}

fn twenty_answers_racing_on_two_replicas_one_outcome(place: &Place) {
    let mut store = place.open();
    let (id, _) = store.ask(&question("raced", 1_000)).unwrap();
    // Two replicas, each with ten answers in flight on connections of its own.
    let start = Arc::new(Barrier::new(20));
    let writers: Vec<_> = (0..20)
        .map(|n| {
            let mut own = place.open();
            let (id, start) = (id.clone(), Arc::clone(&start));
            std::thread::spawn(move || {
                let face = if n % 2 == 0 { Face::Page } else { Face::Cli };
                let mine = Decision {
                    by: Some(format!("person {n}")),
                    ..decision(Outcome::Answered, face, &format!("{{\"n\":{n}}}"))
                };
                start.wait();
                (mine.clone(), own.decide(&id, &mine).unwrap())
            })
        })
        .collect();
    let results: Vec<(Decision, Decided)> =
        writers.into_iter().map(|w| w.join().unwrap()).collect();
    let winners: Vec<&Decision> = results
        .iter()
        .filter(|(_, d)| *d == Decided::Now)
        .map(|(mine, _)| mine)
        .collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    let winner = winners[0].clone();
    for (_, decided) in &results {
        assert!(
            *decided == Decided::Now || *decided == Decided::Already(winner.clone()),
            "every loser sees the winner's outcome: {decided:?}"
        );
    }
    assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(winner));
    let decided_events = store
        .events(&id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "decided")
        .count();
    assert_eq!(decided_events, 1);
}

fn what_was_acknowledged_is_there_after_reopening(place: &Place) {
    let mut store = place.open();
    let (a, _) = store.ask(&question("a", 1_000)).unwrap();
    let (b, _) = store.ask(&question("b", 2_000)).unwrap();
    let answered = decision(Outcome::Answered, Face::Cli, "{}");
    store.decide(&a, &answered).unwrap();
    // Dropped without any goodbye, as a killed process would be.
    std::mem::forget(store);
    let mut store = place.open();
    assert_eq!(store.get(&a).unwrap().unwrap().decision, Some(answered));
    let pending: Vec<String> = store.pending().unwrap().into_iter().map(|q| q.id).collect();
    assert_eq!(pending, [b]);
}

fn asker_gone_marks_come_and_go_and_are_logged(place: &Place) {
    let mut store = place.open();
    let (id, _) = store.ask(&question("k", 1_000)).unwrap();
    assert!(store.mark_gone(&id, "timeout", 5_000).unwrap());
    assert!(
        !store.mark_gone(&id, "killed", 6_000).unwrap(),
        "already marked"
    );
    assert_eq!(
        store.get(&id).unwrap().unwrap().gone,
        Some((5_000, "timeout".to_string()))
    );
    assert!(store.mark_back(&id, 7_000).unwrap());
    assert!(!store.mark_back(&id, 7_500).unwrap());
    assert_eq!(store.get(&id).unwrap().unwrap().gone, None);
    assert!(store.mark_gone(&id, "killed", 8_000).unwrap());
    let gone = decision(Outcome::AskerGone, Face::Inbox, "{}");
    store.decide(&id, &gone).unwrap();
    assert_eq!(
        store.get(&id).unwrap().unwrap().gone,
        None,
        "a decided question has no live mark"
    );
    assert!(!store.mark_gone(&id, "killed", 9_000).unwrap());
    assert!(!store.mark_back(&id, 9_500).unwrap());
    assert!(!store.mark_gone("zzzzzzzz", "killed", 9_000).unwrap());
    let events = store.events(&id).unwrap();
    assert_eq!(
        events.iter().map(|e| e.at).take(4).collect::<Vec<_>>(),
        [1_000, 5_000, 7_000, 8_000]
    );
    assert_eq!(
        kinds(events),
        [
            ("asked".to_string(), None),
            ("asker_left".to_string(), Some("timeout".to_string())),
            ("asker_back".to_string(), None),
            ("asker_left".to_string(), Some("killed".to_string())),
            ("decided".to_string(), Some("asker_gone/inbox".to_string())),
        ]
    );
}

fn history_is_the_decided_questions_newest_first_and_write_once(place: &Place) {
    let mut store = place.open();
    let mut ids = Vec::new();
    for (n, outcome) in [Outcome::Answered, Outcome::Dismissed, Outcome::TimedOut]
        .into_iter()
        .enumerate()
    {
        let (id, _) = store.ask(&question(&format!("k{n}"), 1_000)).unwrap();
        let mut decided = decision(outcome, Face::Page, "{}");
        decided.at = 10_000 + i64::try_from(n).unwrap();
        store.decide(&id, &decided).unwrap();
        ids.push(id);
    }
    store.ask(&question("pending", 1_000)).unwrap();
    let mut listed = |limit| -> Vec<(String, Outcome)> {
        store
            .history(limit)
            .unwrap()
            .into_iter()
            .map(|q| (q.id, q.decision.unwrap().outcome))
            .collect()
    };
    let all = [
        (ids[2].clone(), Outcome::TimedOut),
        (ids[1].clone(), Outcome::Dismissed),
        (ids[0].clone(), Outcome::Answered),
    ];
    assert_eq!(listed(None), all);
    assert_eq!(listed(Some(1)), [all[0].clone()]);
    assert!(listed(Some(0)).is_empty());
    // Nothing rewrites what history shows: a second decision changes nothing.
    let late = decision(Outcome::Cancelled, Face::Cli, "{}");
    assert!(matches!(
        store.decide(&ids[0], &late).unwrap(),
        Decided::Already(_)
    ));
    assert_eq!(
        store
            .history(None)
            .unwrap()
            .into_iter()
            .map(|q| (q.id, q.decision.unwrap().outcome))
            .collect::<Vec<_>>(),
        all
    );
}

fn an_empty_store_is_created_at_the_current_schema(place: &Place) {
    let mut store = place.open();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let kind = store.kind();
    assert_eq!(
        kind,
        match place.location {
            Location::Sqlite(_) => "sqlite",
            Location::Postgres(_) => "postgres",
        }
    );
    // Opening it again (a second replica, a restart) migrates nothing.
    drop(store);
    assert_eq!(place.open().schema_version().unwrap(), SCHEMA_VERSION);
}

fn a_store_at_the_previous_schema_is_migrated_and_keeps_its_questions(place: &Place) {
    migrated_from(place, SCHEMA_VERSION - 1);
}

fn a_store_at_schema_1_is_migrated_through_every_step(place: &Place) {
    migrated_from(place, 1);
}

/// A store as ask_user left it at schema `from`, rows written by that
/// schema's own SQL (the columns of schema 1, which every schema has), then
/// opened by this one.
fn migrated_from(place: &Place, from: i64) {
    let old = store::open_at(&place.location, from).unwrap();
    let mut old = old;
    assert_eq!(old.schema_version().unwrap(), from);
    drop(old);
    // A pending question and a decided one.
    place
        .raw(
            "INSERT INTO questions (id, ask_key, input, prompt, asked_at)
                 VALUES ('pppppppp', 'p', '{\"question\":\"Deploy?\"}', '{}', 1000);
             INSERT INTO questions (id, ask_key, input, prompt, asked_at, outcome, face,
                 document, decided_at)
                 VALUES ('dddddddd', 'd', '{\"question\":\"Deploy?\"}', '{}', 2000, 'answered',
                     'page', '{\"ok\":true}', 5000);
             INSERT INTO events (question, at, kind) VALUES ('pppppppp', 1000, 'asked');",
        )
        .unwrap();
    let answered = Decision {
        at: 5_000,
        ..decision(Outcome::Answered, Face::Page, r#"{"ok":true}"#)
    };
    let mut store = place.open();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let pending = store.pending().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (
            pending[0].id.as_str(),
            pending[0].question.asked_by.as_deref()
        ),
        ("pppppppp", None)
    );
    assert_eq!(
        store.get("dddddddd").unwrap().unwrap().decision,
        Some(answered.clone())
    );
    assert_eq!(
        kinds(store.events("pppppppp").unwrap()),
        [("asked".to_string(), None)]
    );
    // The later schemas' columns work, and their rules cover them.
    let named = Decision {
        by: Some("Grace".into()),
        ..answered
    };
    assert_eq!(store.decide("pppppppp", &named).unwrap(), Decided::Now);
    assert_eq!(
        store.get("pppppppp").unwrap().unwrap().decision,
        Some(named)
    );
    let err = place
        .raw("UPDATE questions SET decided_by = 'Mallory'")
        .unwrap_err();
    assert!(err.contains("written once"), "{err}");
    let err = place
        .raw("UPDATE questions SET asked_by = 'Mallory'")
        .unwrap_err();
    assert!(err.contains("written once"), "{err}");
    assert_eq!(store.tokens().unwrap(), []);
    assert!(
        store
            .add_token(&token("Ada", TokenRole::Person, 1))
            .unwrap()
    );
    // Schema 5: a link key, the faces of links, and still the old rows'
    // order and the database's refusal of an unknown face.
    let key = store.link_key().unwrap();
    assert_eq!(place.open().link_key().unwrap(), key);
    let (id, _) = store.ask(&question("after", 9_000)).unwrap();
    let by_link = decision(Outcome::Answered, Face::Link, r#"{"ok":true}"#);
    assert_eq!(store.decide(&id, &by_link).unwrap(), Decided::Now);
    let err = place
        .raw(
            "INSERT INTO questions (id, ask_key, input, prompt, asked_at, outcome, face,
                 document, decided_at)
                 VALUES ('ffffffff', 'f', '{}', '{}', 1, 'answered', 'phone', '{}', 2)",
        )
        .unwrap_err();
    assert!(err.to_lowercase().contains("check"), "{err}");
    // Opening it again migrates nothing more.
    assert_eq!(place.open().schema_version().unwrap(), SCHEMA_VERSION);
}

fn the_link_key_is_made_once_and_shared_by_replicas_opening_together(place: &Place) {
    let start = Arc::new(Barrier::new(4));
    let replicas: Vec<_> = (0..4)
        .map(|_| {
            let mut own = place.open();
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                own.link_key().unwrap()
            })
        })
        .collect();
    let keys: Vec<_> = replicas.into_iter().map(|r| r.join().unwrap()).collect();
    assert!(keys.iter().all(|k| *k == keys[0]), "one key: {keys:?}");
    assert_ne!(keys[0], [0; 32]);
    // Kept: a restart reads the same one.
    assert_eq!(place.open().link_key().unwrap(), keys[0]);
}

fn the_faces_of_links_and_channels_are_stored_and_others_refused(place: &Place) {
    let mut store = place.open();
    for (n, face) in [Face::Link, Face::Ntfy, Face::Matrix, Face::Rule]
        .into_iter()
        .enumerate()
    {
        let (id, _) = store.ask(&question(&format!("f{n}"), 1_000)).unwrap();
        let decided = Decision {
            by: Some("Ada's phone".into()),
            ..decision(Outcome::Answered, face, r#"{"ok":true}"#)
        };
        assert_eq!(store.decide(&id, &decided).unwrap(), Decided::Now);
        assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(decided));
        assert_eq!(
            kinds(store.events(&id).unwrap())
                .last()
                .unwrap()
                .1
                .as_deref(),
            Some(format!("answered/{}", face.as_str()).as_str())
        );
    }
    let (id, _) = store.ask(&question("bogus", 1_000)).unwrap();
    let err = place
        .raw(&format!(
            "UPDATE questions SET outcome = 'answered', face = 'phone', document = '{{}}',
                 decided_at = 1 WHERE id = '{id}'"
        ))
        .unwrap_err();
    assert!(err.to_lowercase().contains("check"), "{err}");
}

fn a_newer_schema_is_refused(place: &Place) {
    let store = place.open();
    drop(store);
    let newer = match place.location {
        Location::Sqlite(_) => "PRAGMA user_version = 99",
        Location::Postgres(_) => "UPDATE ask_user_schema SET version = 99",
    };
    place.raw(newer).unwrap();
    let err = store::open(&place.location)
        .err()
        .expect("a newer schema is refused");
    assert!(
        matches!(
            err,
            Error::NewerSchema {
                found: 99,
                known: SCHEMA_VERSION
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&format!(
            "newer ask_user (schema 99, this one knows {SCHEMA_VERSION})"
        )),
        "{err}"
    );
}

/// PostgreSQL only: the server restarts under an open store (an upgrade, a
/// failover). The next call finds the connection lost, opens a new one and
/// succeeds; it does not fail once first.
fn a_restarted_server_is_reconnected_to_by_the_next_call() {
    let server = harness::require(postgres::Server::start(), postgres::MISSING);
    let location = Location::Postgres(server.new_database());
    let mut store = store::open(&location).unwrap();
    let (id, _) = store.ask(&question("before", 1_000)).unwrap();
    server.stop();
    server.run();
    let answered = decision(Outcome::Answered, Face::Cli, "{}");
    assert_eq!(store.decide(&id, &answered).unwrap(), Decided::Now);
    assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(answered));
    // Down, a call fails with the server's address, and no password.
    server.stop();
    let err = store.pending().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("PostgreSQL: error connecting to server"),
        "{err}"
    );
    server.run();
    assert_eq!(store.history(None).unwrap().len(), 1);
}

/// PostgreSQL only: a session opened while the database was read-only keeps
/// refusing writes after the database takes them again (it keeps the
/// `default_transaction_read_only` it started with); the store asks a new
/// session then, so the first write after the database is writable again
/// goes in instead of refusing.
fn a_session_opened_while_read_only_does_not_refuse_once_writable() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let name = url.rsplit('/').next().unwrap().to_string();
    let mut store = store::open(&Location::Postgres(url)).unwrap();
    let (id, _) = store.ask(&question("before", 1_000)).unwrap();
    let read_only = |on: bool| {
        let sql = format!("ALTER DATABASE {name} SET default_transaction_read_only = {on}");
        server.psql("postgres", &sql).unwrap();
    };
    read_only(true);
    let cut = format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{name}'"
    );
    server.psql("postgres", &cut).unwrap();
    // pg_terminate_backend only signals the sessions: wait until they are
    // gone, or the read below may reach one still ending (57P01).
    let left = format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}'");
    common::inbox::until(
        std::time::Duration::from_secs(10),
        "the store's sessions to end",
        || server.psql("postgres", &left).unwrap() == "0",
    );
    // A read opens the store's new session, read-only as the database is now.
    assert_eq!(store.pending().unwrap().len(), 1);
    let answered = decision(Outcome::Answered, Face::Cli, "{}");
    let refused = store.decide(&id, &answered).unwrap_err();
    assert_eq!(
        refused.refusal(),
        Some(store::Refusal::ReadOnly),
        "{refused}"
    );
    assert_eq!(store.pending().unwrap().len(), 1);
    read_only(false);
    assert_eq!(store.decide(&id, &answered).unwrap(), Decided::Now);
    assert_eq!(store.get(&id).unwrap().unwrap().decision, Some(answered));
}

/// A PostgreSQL server of the test's own with pg_stat_statements (and
/// `settings`), a new database with the extension, and a store on it.
fn counting_statements(settings: &[&str]) -> (postgres::Server, String, Box<dyn store::Store>) {
    let mut all = vec!["shared_preload_libraries=pg_stat_statements".to_string()];
    all.extend(settings.iter().map(|s| s.to_string()));
    let server = harness::require(
        postgres::Server::start_with(&all, |_| {}),
        postgres::MISSING,
    );
    let url = server.new_database();
    let database = url.rsplit('/').next().unwrap().to_string();
    server
        .psql(&database, "CREATE EXTENSION pg_stat_statements")
        .unwrap();
    let store = store::open(&Location::Postgres(url)).unwrap();
    (server, database, store)
}

/// PostgreSQL only: the store prepares each statement once per connection
/// and keeps it, so the server parses and plans an ask once however many
/// follow (issue #40's throughput: parsing and planning each ask anew was
/// most of the server's time). pg_stat_statements counts each statement's
/// plans; with generic plans forced, a kept statement is planned once, a
/// statement sent as text once per call.
fn each_statement_is_planned_once_per_connection() {
    let (server, database, mut store) = counting_statements(&[
        "pg_stat_statements.track_planning=on",
        "plan_cache_mode=force_generic_plan",
    ]);
    server
        .psql(&database, "SELECT pg_stat_statements_reset()")
        .unwrap();
    for n in 0..12 {
        let (id, created) = store.ask(&question(&format!("k{n}"), 1_000 + n)).unwrap();
        assert!(created);
        assert_eq!(store.get(&id).unwrap().unwrap().id, id);
        let done = decision(Outcome::Answered, Face::Cli, "{}");
        assert_eq!(store.decide(&id, &done).unwrap(), Decided::Now);
    }
    let counted = |start: &str| -> String {
        server
            .psql(
                &database,
                &format!(
                    "SELECT calls || ' calls, ' || plans || ' plans' FROM pg_stat_statements \
                     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                     AND query LIKE '{start}%'"
                ),
            )
            .unwrap()
    };
    assert_eq!(counted("WITH found AS"), "12 calls, 1 plans", "the ask");
    assert_eq!(
        counted("SELECT id, ask_key"),
        "12 calls, 1 plans",
        "the get (a decision that wins reads nothing)"
    );
    assert_eq!(counted("UPDATE questions SET outcome"), "12 calls, 1 plans");
    assert_eq!(counted("INSERT INTO events"), "12 calls, 1 plans");
}

/// PostgreSQL only: the read of many questions finds them by the index
/// however much the table grew since the connection first read some. A kept
/// statement's generic plan, made on a new store's small table, scans every
/// row for ever after (until an ANALYZE; autovacuum is off here as it may be
/// for a minute anywhere). pg_stat_statements counts the blocks the read
/// touched: a few, not the table's.
fn many_questions_are_found_by_the_index_after_the_table_grew() {
    let (server, database, mut store) = counting_statements(&["autovacuum=off"]);
    let ids: Vec<String> = (0..3)
        .map(|n| store.ask(&question(&format!("k{n}"), 1_000 + n)).unwrap().0)
        .collect();
    // More calls than PostgreSQL makes before it settles on a generic plan.
    for _ in 0..8 {
        assert_eq!(store.get_many(&ids).unwrap().len(), 3);
    }
    server
        .psql(
            &database,
            "INSERT INTO questions (id, ask_key, input, prompt, asked_at)
             SELECT 'g' || n, 'g' || n, repeat('x', 300), repeat('y', 300), n
             FROM generate_series(1, 20000) n",
        )
        .unwrap();
    server
        .psql(&database, "SELECT pg_stat_statements_reset()")
        .unwrap();
    assert_eq!(store.get_many(&ids).unwrap().len(), 3);
    let number = |sql: &str| -> i64 { server.psql(&database, sql).unwrap().parse().unwrap() };
    let touched = number(
        "SELECT sum(shared_blks_hit + shared_blks_read) FROM pg_stat_statements
         WHERE query LIKE 'SELECT id, ask_key%ANY%'",
    );
    let table = number("SELECT pg_relation_size('questions') / 8192");
    assert!(table > 1_000, "the table has {table} blocks");
    assert!(touched < 50, "{touched} blocks touched of {table}");
}

/// PostgreSQL only: the notices that reach a replica's listening connection
/// together (here: one transaction's) are handed on in one batch, in the
/// order sent, so that the replica reads their questions back in one
/// statement; a batch holds at most `BATCH` notices.
fn notices_committed_together_are_handed_on_together() {
    use ask_user::inbox::store::postgres::{BATCH, Notice, listen};
    use std::sync::mpsc;
    use std::time::Duration;

    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let database = url.rsplit('/').next().unwrap().to_string();
    store::open(&Location::Postgres(url.clone())).unwrap();
    let (heard, hearing) = mpsc::channel();
    listen(&url, move |notice| {
        let _ = heard.send(notice);
    })
    .unwrap();
    let next = || hearing.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(next(), Notice::CatchUp);
    let send = |names: &[String]| {
        let notifies: Vec<String> = names
            .iter()
            .map(|name| format!("SELECT pg_notify('ask_user', '{name}');"))
            .collect();
        server
            .psql(&database, &format!("BEGIN; {} COMMIT;", notifies.concat()))
            .unwrap();
    };
    let three: Vec<String> = ["a", "b", "tokens"].map(String::from).to_vec();
    send(&three);
    assert_eq!(next(), Notice::Changed(three));
    // More than a batch: every one, in order, none in a batch over BATCH.
    let many: Vec<String> = (0..BATCH + 44).map(|n| format!("q{n}")).collect();
    send(&many);
    let mut got = Vec::new();
    let mut batches = 0;
    while got.len() < many.len() {
        let Notice::Changed(batch) = next() else {
            panic!("only changes were sent");
        };
        assert!(batch.len() <= BATCH, "{}", batch.len());
        got.extend(batch);
        batches += 1;
    }
    assert_eq!(got, many);
    assert!(batches >= 2, "{batches}");
}

/// PostgreSQL only: the store keeps its connection from call to call and
/// opens another only when that one is lost (each opening costs round trips
/// and a backend process on the server).
fn one_connection_serves_call_after_call() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let mut store = store::open(&Location::Postgres(url.clone())).unwrap();
    let mut watcher = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    // The store's backends: every one in its database but the watcher's.
    let mut backends = || -> Vec<i32> {
        watcher
            .query(
                "SELECT pid FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY pid",
                &[],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    };
    let (id, _) = store.ask(&question("one", 1_000)).unwrap();
    let first = backends();
    assert_eq!(first.len(), 1, "{first:?}");
    for _ in 0..3 {
        assert_eq!(store.pending().unwrap().len(), 1);
        assert!(store.get(&id).unwrap().is_some());
    }
    assert_eq!(backends(), first, "a call opened a connection of its own");
}

/// PostgreSQL only: a call is run again only when its connection was lost.
/// An error from the database itself comes back as it is, after one try: a
/// trigger that refuses every new question counts its runs in a sequence,
/// which a rollback does not undo.
fn a_transaction_the_database_refuses_runs_once() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let mut store = store::open(&Location::Postgres(url.clone())).unwrap();
    let mut raw = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    raw.batch_execute(
        "CREATE SEQUENCE tries;
         CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
           $$ BEGIN PERFORM nextval('tries'); RAISE EXCEPTION 'no new questions'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON questions FOR EACH ROW EXECUTE FUNCTION refuse();",
    )
    .unwrap();
    let err = store.ask(&question("refused", 1_000)).unwrap_err();
    assert!(err.to_string().contains("no new questions"), "{err}");
    let tries: i64 = raw
        .query_one("SELECT last_value FROM tries", &[])
        .unwrap()
        .get(0);
    assert_eq!(tries, 1, "the refused transaction ran {tries} times");
    // The store still works once the database takes questions again.
    raw.batch_execute("DROP TRIGGER refuse ON questions")
        .unwrap();
    assert!(store.ask(&question("taken", 1_000)).is_ok());
}

/// PostgreSQL only: `call` runs a decision again when the connection was
/// lost, and the first try may have committed before its reply was lost.
/// The same decision sent again is then this call's own win (`Now`), not
/// someone else's (`Already`); any other decision is `Already`.
fn a_decision_sent_again_exactly_is_still_now() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let location = Location::Postgres(server.new_database());
    let mut store = store::open(&location).unwrap();
    let (id, _) = store.ask(&question("again", 1_000)).unwrap();
    let answered = decision(Outcome::Answered, Face::Page, r#"{"answered":true}"#);
    assert_eq!(store.decide(&id, &answered).unwrap(), Decided::Now);
    assert_eq!(store.decide(&id, &answered).unwrap(), Decided::Now);
    let later = Decision {
        at: answered.at + 1,
        ..answered.clone()
    };
    assert_eq!(
        store.decide(&id, &later).unwrap(),
        Decided::Already(answered.clone())
    );
    let history = store.history(None).unwrap();
    assert_eq!(history.len(), 1, "one outcome, written once");
}

fn token(name: &str, role: TokenRole, byte: u8) -> StoredToken {
    StoredToken {
        name: name.into(),
        role,
        digest: vec![byte; 32],
        added_at: 1_000 + Millis::from(byte),
        groups: Vec::new(),
    }
}

fn a_person_tokens_groups_are_kept_sorted_once_each(place: &Place) {
    let mut store = place.open();
    let groups = |names: &[&str]| names.iter().map(|g| g.to_string()).collect::<Vec<_>>();
    let ada = StoredToken {
        groups: groups(&["ops", "db", "ops"]),
        ..token("Ada", TokenRole::Person, 1)
    };
    assert!(store.add_token(&ada).unwrap());
    assert!(
        store
            .add_token(&token("Bob", TokenRole::Person, 2))
            .unwrap()
    );
    let kept = place.open().tokens().unwrap();
    assert_eq!(kept[0].groups, groups(&["db", "ops"]));
    assert_eq!(kept[1].groups, groups(&[]));
}

fn named_tokens_are_kept_by_digest_once_per_name(place: &Place) {
    let mut store = place.open();
    assert_eq!(store.tokens().unwrap(), []);
    let ada = token("Ada", TokenRole::Person, 1);
    let ci = token("ci-runner", TokenRole::Asker, 2);
    assert!(store.add_token(&ci).unwrap());
    assert!(store.add_token(&ada).unwrap());
    // A taken name changes nothing, whatever the rest.
    assert!(!store.add_token(&token("Ada", TokenRole::Asker, 3)).unwrap());
    assert_eq!(place.open().tokens().unwrap(), [ada.clone(), ci.clone()]);
    // A digest is one token's only; a digest is 32 bytes.
    assert!(
        store
            .add_token(&token("Bob", TokenRole::Person, 1))
            .is_err()
    );
    let short = StoredToken {
        digest: vec![7; 31],
        ..token("Eve", TokenRole::Person, 7)
    };
    assert!(store.add_token(&short).is_err());
    assert!(store.remove_token("Ada").unwrap());
    assert!(!store.remove_token("Ada").unwrap());
    assert_eq!(place.open().tokens().unwrap(), [ci]);
}

fn who_asked_is_kept_and_written_once(place: &Place) {
    let mut store = place.open();
    let named = NewQuestion {
        asked_by: Some("ci-runner".into()),
        ..question("named", 1_000)
    };
    let (id, _) = store.ask(&named).unwrap();
    assert_eq!(store.get(&id).unwrap().unwrap().question, named);
    assert_eq!(
        place.open().pending().unwrap()[0]
            .question
            .asked_by
            .as_deref(),
        Some("ci-runner")
    );
    let err = place
        .raw("UPDATE questions SET asked_by = 'mallory'")
        .unwrap_err();
    assert!(err.contains("who asked is written once"), "{err}");
}

fn new_vote(voter: &str, answers: &str, at: Millis) -> NewVote {
    NewVote {
        voter: voter.into(),
        face: Face::Page,
        answers: answers.into(),
        at,
    }
}

/// Decides once `needed` votes are in; the document lists the voters.
fn needs(needed: usize) -> Tally {
    Arc::new(move |votes: &[NewVote]| {
        (votes.len() >= needed).then(|| Decision {
            by: votes.last().map(|v| v.voter.clone()),
            ..decision(
                Outcome::Answered,
                Face::Page,
                &serde_json::to_string(&votes.iter().map(|v| &v.voter).collect::<Vec<_>>())
                    .unwrap(),
            )
        })
    })
}

fn votes_racing_on_two_replicas_count_once_and_decide_once(place: &Place) {
    const VOTERS: usize = 6;
    const NEEDED: usize = 4;
    let mut replicas = [place.open(), place.open()];
    for round in 0..5 {
        let (id, _) = replicas[0]
            .ask(&question(&format!("vote{round}"), 1_000))
            .unwrap();
        let start = Arc::new(Barrier::new(VOTERS));
        let voters: Vec<_> = (0..VOTERS)
            .map(|n| {
                // Each voter's own connection: a replica each, as two
                // inboxes' requests are on their own connections.
                let mut own = place.open();
                let (start, id) = (Arc::clone(&start), id.clone());
                std::thread::spawn(move || {
                    start.wait();
                    own.vote(
                        &id,
                        &new_vote(&format!("p{n}"), "[]", 2_000 + n as Millis),
                        needs(NEEDED),
                    )
                    .unwrap()
                })
            })
            .collect();
        let results: Vec<Voted> = voters.into_iter().map(|v| v.join().unwrap()).collect();
        let decided: Vec<&Decision> = results
            .iter()
            .filter_map(|r| match r {
                Voted::Decided(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(decided.len(), 1, "round {round}: {results:?}");
        // Each counted vote saw the ones before it: 1, 2, 3 votes.
        let mut seen: Vec<usize> = results
            .iter()
            .filter_map(|r| match r {
                Voted::Counted(votes) => Some(votes.len()),
                _ => None,
            })
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..NEEDED).collect::<Vec<_>>(), "round {round}");
        let late = results
            .iter()
            .filter(|r| matches!(r, Voted::Already(d) if d == decided[0]))
            .count();
        assert_eq!(late, VOTERS - NEEDED, "round {round}: {results:?}");
        // Through either replica: the one outcome, and exactly the votes that counted.
        for replica in &mut replicas {
            let stored = replica.get(&id).unwrap().unwrap();
            assert_eq!(stored.decision.as_ref(), Some(decided[0]));
            let kept = replica.votes(&id).unwrap();
            assert_eq!(kept.len(), NEEDED, "round {round}");
            let names: Vec<&String> = kept.iter().map(|v| &v.voter).collect();
            assert_eq!(
                serde_json::to_string(&names).unwrap(),
                decided[0].document,
                "the outcome lists the votes kept"
            );
        }
    }
}

fn a_persons_second_vote_replaces_theirs_and_a_closed_question_takes_none(place: &Place) {
    let mut store = place.open();
    let (id, _) = store.ask(&question("revote", 1_000)).unwrap();
    let Voted::Counted(votes) = store
        .vote(&id, &new_vote("ada", "[1]", 2_000), needs(2))
        .unwrap()
    else {
        panic!("counted expected");
    };
    assert_eq!(votes.len(), 1);
    let Voted::Counted(votes) = store
        .vote(&id, &new_vote("ada", "[2]", 3_000), needs(2))
        .unwrap()
    else {
        panic!("counted expected");
    };
    assert_eq!(votes, [new_vote("ada", "[2]", 3_000)]);
    let Voted::Decided(decided) = store
        .vote(&id, &new_vote("bob", "[2]", 4_000), needs(2))
        .unwrap()
    else {
        panic!("decided expected");
    };
    assert_eq!(decided.by.as_deref(), Some("bob"));
    // The deciding vote sent again exactly (a retry after a lost reply) is
    // still the one that decided; anything else from bob now is late.
    assert_eq!(
        store
            .vote(&id, &new_vote("bob", "[2]", 4_000), needs(2))
            .unwrap(),
        Voted::Decided(decided.clone())
    );
    assert_eq!(
        store
            .vote(&id, &new_vote("bob", "[2]", 4_001), needs(2))
            .unwrap(),
        Voted::Already(decided.clone())
    );
    assert_eq!(
        kinds(store.events(&id).unwrap()),
        [
            ("asked".to_string(), None),
            ("decided".to_string(), Some("answered/page".to_string()))
        ]
    );
    assert_eq!(
        store
            .vote(&id, &new_vote("cy", "[2]", 5_000), needs(2))
            .unwrap(),
        Voted::Already(decided)
    );
    assert_eq!(store.votes(&id).unwrap().len(), 2);
    assert_eq!(
        store
            .vote("zzzzzzzz", &new_vote("cy", "[2]", 5_000), needs(1))
            .unwrap(),
        Voted::Unknown
    );
}

fn rules_are_kept_once_per_id_and_away_keeps_its_first_since(place: &Place) {
    let mut store = place.open();
    assert_eq!(store.rules().unwrap(), []);
    let rule = |id: &str, added_at: Millis| StoredRule {
        id: id.into(),
        owner: "Ada".into(),
        rule: r#"{"text":"deploy","replies":["yes"]}"#.into(),
        added_at,
        expires_at: added_at + 1_000,
    };
    assert!(store.add_rule(&rule("rule-bbbbbbbb", 2)).unwrap());
    assert!(store.add_rule(&rule("rule-aaaaaaaa", 1)).unwrap());
    // A taken id changes nothing.
    assert!(!store.add_rule(&rule("rule-aaaaaaaa", 9)).unwrap());
    // Oldest first, from another connection (another replica).
    assert_eq!(
        place.open().rules().unwrap(),
        [rule("rule-aaaaaaaa", 1), rule("rule-bbbbbbbb", 2)]
    );
    assert!(store.remove_rule("rule-aaaaaaaa").unwrap());
    assert!(!store.remove_rule("rule-aaaaaaaa").unwrap());
    assert_eq!(place.open().rules().unwrap(), [rule("rule-bbbbbbbb", 2)]);
    // Away: the first `since` stays while the person stays away.
    assert_eq!(store.away().unwrap(), []);
    store.set_away("Grace", Some(5)).unwrap();
    store.set_away("Ada", Some(7)).unwrap();
    store.set_away("Grace", Some(9)).unwrap();
    assert_eq!(
        place.open().away().unwrap(),
        [("Ada".to_string(), 7), ("Grace".to_string(), 5)]
    );
    store.set_away("Grace", None).unwrap();
    store.set_away("Nobody", None).unwrap();
    assert_eq!(place.open().away().unwrap(), [("Ada".to_string(), 7)]);
}
