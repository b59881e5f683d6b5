//! The inbox's `/metrics` (DESIGN §10, seed 002's "Metrics"), in the
//! Prometheus text format (0.0.4), counted by hand: a handful of counters and
//! one histogram need no crate.
//!
//! The names are seed 002's: `mcp_tool_calls_total` (questions asked, by the
//! face that asked), `mcp_errors_total` (errors by code) and
//! `mcp_question_latency_ms` (a histogram of time to answer, in
//! milliseconds); beside them `mcp_questions_closed_total` counts how
//! questions ended (answered, cancelled, timed out, …), by the face that
//! asked and the face that ended it. Counts start at zero when the inbox
//! starts (Prometheus reads a restart as a counter reset); a question that
//! waited in the store across a restart is counted when it ends, with
//! `face="unknown"`.
//!
//! The store's metrics, in the same style: `mcp_store_latency_ms` (a
//! histogram of each store call the hub makes, by operation: `op="ask"`,
//! `"decide"`, `"get"`, …), `mcp_store_reachable` (1 or 0, what `/readyz`
//! says) and `mcp_inbox_replicas` (the inbox replicas on this store: 1 for
//! SQLite; for PostgreSQL the replicas listening on this database, read
//! when `/metrics` is asked for). The latency is counted with atomics, no
//! lock: a store call costs two clock readings and four relaxed additions.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::Deserialize;

use super::store::{
    self, Decided, Decision, Event, Face, Millis, NewQuestion, Outcome, Store, Stored, StoredToken,
};

/// The face a question was asked through, as the asker says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskingFace {
    /// `ask_user ask --ui inbox|auto`.
    Ask,
    /// `ask_user mcp --fallback inbox`.
    Mcp,
    /// `TOOLBOX_ACTION=execute` with `ASK_USER_UI`.
    Execute,
}

impl AskingFace {
    pub fn as_str(self) -> &'static str {
        match self {
            AskingFace::Ask => "ask",
            AskingFace::Mcp => "mcp",
            AskingFace::Execute => "execute",
        }
    }
}

/// The label of a question whose asking face is not known (asked before a
/// restart, or by an asker that did not say).
const UNKNOWN_FACE: &str = "unknown";

/// Upper bounds of the time-to-answer buckets, in milliseconds: from an
/// answer typed at once to one given an hour later.
const LATENCY_BUCKETS_MS: [u64; 12] = [
    1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000,
    14_400_000,
];

#[derive(Default)]
pub struct Metrics {
    counts: Mutex<Counts>,
    /// Shared with the [`Timed`] store that fills it.
    store_latency: Arc<StoreLatency>,
}

#[derive(Default)]
struct Counts {
    /// By asking face.
    asked: BTreeMap<&'static str, u64>,
    /// By (asking face, outcome, the face that ended it).
    closed: BTreeMap<(&'static str, &'static str, &'static str), u64>,
    /// Askers that left before an outcome, their question kept (collect
    /// later): by (asking face, why: timeout, away, disconnected).
    gone: BTreeMap<(&'static str, String), u64>,
    /// By error code.
    errors: BTreeMap<&'static str, u64>,
    /// Answered questions per bucket (not cumulative; summed when written).
    latency_buckets: [u64; LATENCY_BUCKETS_MS.len()],
    latency_count: u64,
    latency_sum_ms: u64,
    /// `--notify-to`: delivered notices, by channel kind.
    notify_delivered: BTreeMap<&'static str, u64>,
    /// Failed attempts, by (channel kind, transient or permanent).
    notify_failures: BTreeMap<(&'static str, &'static str), u64>,
    /// Notices given up on (a full queue, a permanent failure), by channel kind.
    notify_dropped: BTreeMap<&'static str, u64>,
    /// Escalation steps this replica fired (`--policy`).
    escalations: u64,
}

impl Metrics {
    fn counts(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new question.
    pub fn asked(&self, face: Option<AskingFace>) {
        *self.counts().asked.entry(face_label(face)).or_default() += 1;
    }

    /// A question ended `outcome`, by `by`, `waited_ms` after it was asked
    /// (only answers go into the time-to-answer histogram).
    pub fn closed(&self, face: Option<AskingFace>, outcome: Outcome, by: Face, waited_ms: Millis) {
        let mut counts = self.counts();
        *counts
            .closed
            .entry((face_label(face), outcome.as_str(), by.as_str()))
            .or_default() += 1;
        if outcome == Outcome::Answered {
            let waited = u64::try_from(waited_ms).unwrap_or(0);
            if let Some(bucket) = LATENCY_BUCKETS_MS.iter().position(|&le| waited <= le) {
                counts.latency_buckets[bucket] += 1;
            }
            counts.latency_count += 1;
            counts.latency_sum_ms = counts.latency_sum_ms.saturating_add(waited);
        }
    }

    /// The asker of a pending question gave up (`reason`: timeout, away,
    /// disconnected); the question stays open for collect later.
    pub fn asker_gone(&self, face: Option<AskingFace>, reason: &str) {
        *self
            .counts()
            .gone
            .entry((face_label(face), reason.to_string()))
            .or_default() += 1;
    }

    /// A request the inbox refused with an error document of `code`.
    pub fn error(&self, code: &'static str) {
        *self.counts().errors.entry(code).or_default() += 1;
    }

    /// A `--notify-to` channel delivered a notice.
    pub fn notify_delivered(&self, channel: &'static str) {
        *self.counts().notify_delivered.entry(channel).or_default() += 1;
    }

    /// An attempt to deliver failed (`reason`: transient or permanent).
    pub fn notify_failed(&self, channel: &'static str, reason: &'static str) {
        *self
            .counts()
            .notify_failures
            .entry((channel, reason))
            .or_default() += 1;
    }

    /// `n` notices were given up on.
    pub fn notify_dropped(&self, channel: &'static str, n: u64) {
        *self.counts().notify_dropped.entry(channel).or_default() += n;
    }

    /// This replica fired an escalation step (it won the step's row).
    pub fn escalated(&self) {
        self.counts().escalations += 1;
    }

    /// `store`, with each call timed into `mcp_store_latency_ms`.
    pub fn timed(&self, store: Box<dyn Store>) -> Box<dyn Store> {
        Box::new(Timed {
            store,
            latency: Arc::clone(&self.store_latency),
        })
    }

    /// Everything, in the Prometheus text format; `store` is what the hub
    /// knows of its store now.
    pub fn render(&self, store: &StoreGauges) -> String {
        let mut text = self.render_counts();
        self.store_latency.render(&mut text);
        store.render(&mut text);
        text
    }

    fn render_counts(&self) -> String {
        let counts = self.counts();
        let mut text = String::with_capacity(4096);
        header(
            &mut text,
            "mcp_tool_calls_total",
            "counter",
            "Questions asked through the inbox, by the face that asked.",
        );
        // The faces that can ask are always there, at zero until used.
        let mut asked: BTreeMap<&str, u64> =
            [AskingFace::Ask, AskingFace::Mcp, AskingFace::Execute]
                .into_iter()
                .map(|face| (face.as_str(), 0))
                .collect();
        asked.extend(counts.asked.iter().map(|(face, n)| (*face, *n)));
        for (face, n) in asked {
            let _ = writeln!(text, "mcp_tool_calls_total{{face=\"{face}\"}} {n}");
        }
        header(
            &mut text,
            "mcp_questions_closed_total",
            "counter",
            "Questions that ended, by the face that asked, how they ended (outcome) and the face that ended them (by).",
        );
        for ((face, outcome, by), n) in &counts.closed {
            let _ = writeln!(
                text,
                "mcp_questions_closed_total{{face=\"{face}\",outcome=\"{outcome}\",by=\"{by}\"}} {n}"
            );
        }
        header(
            &mut text,
            "mcp_askers_gone_total",
            "counter",
            "Askers that gave up before an outcome (their question stays open to be collected later), by the face that asked and why (timeout, away, disconnected).",
        );
        for ((face, reason), n) in &counts.gone {
            let _ = writeln!(
                text,
                "mcp_askers_gone_total{{face=\"{face}\",reason=\"{reason}\"}} {n}"
            );
        }
        header(
            &mut text,
            "mcp_errors_total",
            "counter",
            "Requests the inbox refused with an error document, by error code.",
        );
        for (code, n) in &counts.errors {
            let _ = writeln!(text, "mcp_errors_total{{code=\"{code}\"}} {n}");
        }
        header(
            &mut text,
            "mcp_question_latency_ms",
            "histogram",
            "Time from ask to answer, in milliseconds (answered questions only).",
        );
        let mut cumulative = 0;
        for (le, n) in LATENCY_BUCKETS_MS.iter().zip(counts.latency_buckets) {
            cumulative += n;
            let _ = writeln!(
                text,
                "mcp_question_latency_ms_bucket{{le=\"{le}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            text,
            "mcp_question_latency_ms_bucket{{le=\"+Inf\"}} {}",
            counts.latency_count
        );
        let _ = writeln!(
            text,
            "mcp_question_latency_ms_sum {}\nmcp_question_latency_ms_count {}",
            counts.latency_sum_ms, counts.latency_count
        );
        header(
            &mut text,
            "mcp_notify_delivered_total",
            "counter",
            "Notices a --notify-to channel delivered, by channel kind.",
        );
        for (channel, n) in &counts.notify_delivered {
            let _ = writeln!(
                text,
                "mcp_notify_delivered_total{{channel=\"{channel}\"}} {n}"
            );
        }
        header(
            &mut text,
            "mcp_notify_failures_total",
            "counter",
            "Failed --notify-to delivery attempts, by channel kind and reason (transient: retried; permanent: not).",
        );
        for ((channel, reason), n) in &counts.notify_failures {
            let _ = writeln!(
                text,
                "mcp_notify_failures_total{{channel=\"{channel}\",reason=\"{reason}\"}} {n}"
            );
        }
        header(
            &mut text,
            "mcp_notify_dropped_total",
            "counter",
            "Notices a --notify-to channel gave up on (its queue full, or a permanent failure), by channel kind.",
        );
        for (channel, n) in &counts.notify_dropped {
            let _ = writeln!(
                text,
                "mcp_notify_dropped_total{{channel=\"{channel}\"}} {n}"
            );
        }
        header(
            &mut text,
            "mcp_escalations_total",
            "counter",
            "Escalation steps (--policy) this replica fired: each step fires once per question across the replicas.",
        );
        let _ = writeln!(text, "mcp_escalations_total {}", counts.escalations);
        text
    }
}

/// The store's gauges, as the hub reads them for one `/metrics` request.
pub struct StoreGauges {
    /// "sqlite" or "postgres" (the `store` label).
    pub kind: &'static str,
    /// What `/readyz` says.
    pub reachable: bool,
    /// The inbox replicas on this store; `None` when it could not be read
    /// (the store is unreachable): the sample is left out, with a comment,
    /// rather than a stale or made-up count.
    pub replicas: Option<u64>,
}

impl StoreGauges {
    fn render(&self, text: &mut String) {
        let kind = self.kind;
        header(
            text,
            "mcp_store_reachable",
            "gauge",
            "Whether the store answered its last contact (1) or not (0), as /readyz says.",
        );
        let _ = writeln!(
            text,
            "mcp_store_reachable{{store=\"{kind}\"}} {}",
            u8::from(self.reachable)
        );
        header(
            text,
            "mcp_inbox_replicas",
            "gauge",
            "Inbox replicas serving this store: 1 for SQLite; for PostgreSQL, the replicas listening on this database.",
        );
        match self.replicas {
            Some(n) => {
                let _ = writeln!(text, "mcp_inbox_replicas{{store=\"{kind}\"}} {n}");
            }
            None => text.push_str(
                "# mcp_inbox_replicas left out: the store is unreachable, so the count is unknown\n",
            ),
        }
    }
}

/// A store operation, the `op` label of `mcp_store_latency_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoreOp {
    Ask,
    Get,
    Pending,
    History,
    Decide,
    MarkGone,
    MarkBack,
    Events,
    SchemaVersion,
}

impl StoreOp {
    const ALL: [StoreOp; 9] = [
        StoreOp::Ask,
        StoreOp::Get,
        StoreOp::Pending,
        StoreOp::History,
        StoreOp::Decide,
        StoreOp::MarkGone,
        StoreOp::MarkBack,
        StoreOp::Events,
        StoreOp::SchemaVersion,
    ];

    fn as_str(self) -> &'static str {
        match self {
            StoreOp::Ask => "ask",
            StoreOp::Get => "get",
            StoreOp::Pending => "pending",
            StoreOp::History => "history",
            StoreOp::Decide => "decide",
            StoreOp::MarkGone => "mark_gone",
            StoreOp::MarkBack => "mark_back",
            StoreOp::Events => "events",
            StoreOp::SchemaVersion => "schema_version",
        }
    }
}

/// Upper bounds of the store latency buckets, in microseconds (written in
/// milliseconds): from an SQLite read (tens of microseconds) to a call that
/// waited out PostgreSQL's statement timeout (15 s).
const STORE_BUCKETS_US: [u64; 15] = [
    250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000,
    2_500_000, 5_000_000, 15_000_000,
];

/// `mcp_store_latency_ms`: per operation, calls per bucket (not
/// cumulative; summed when written), their count and their sum.
#[derive(Default)]
struct StoreLatency {
    ops: [OpLatency; StoreOp::ALL.len()],
}

#[derive(Default)]
struct OpLatency {
    buckets: [AtomicU64; STORE_BUCKETS_US.len()],
    count: AtomicU64,
    sum_us: AtomicU64,
}

impl StoreLatency {
    fn record(&self, op: StoreOp, since: Instant) {
        let us = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.record_micros(op, us);
    }

    fn record_micros(&self, op: StoreOp, us: u64) {
        let latency = &self.ops[op as usize];
        if let Some(bucket) = STORE_BUCKETS_US.iter().position(|&le| us <= le) {
            latency.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        }
        latency.count.fetch_add(1, Ordering::Relaxed);
        latency.sum_us.fetch_add(us, Ordering::Relaxed);
    }

    /// Operations not called yet are left out (as the counters' unseen
    /// labels are). A scrape that races a call may see its bucket before
    /// its count: Prometheus takes that (the next scrape is exact).
    fn render(&self, text: &mut String) {
        header(
            text,
            "mcp_store_latency_ms",
            "histogram",
            "Time of each store call the inbox made, in milliseconds, by operation (op).",
        );
        for op in StoreOp::ALL {
            let latency = &self.ops[op as usize];
            let count = latency.count.load(Ordering::Relaxed);
            if count == 0 {
                continue;
            }
            let op = op.as_str();
            let mut cumulative = 0;
            for (le, n) in STORE_BUCKETS_US.iter().zip(&latency.buckets) {
                cumulative += n.load(Ordering::Relaxed);
                let _ = writeln!(
                    text,
                    "mcp_store_latency_ms_bucket{{op=\"{op}\",le=\"{}\"}} {cumulative}",
                    ms(*le)
                );
            }
            let sum = ms(latency.sum_us.load(Ordering::Relaxed));
            let _ = writeln!(
                text,
                "mcp_store_latency_ms_bucket{{op=\"{op}\",le=\"+Inf\"}} {count}\n\
                 mcp_store_latency_ms_sum{{op=\"{op}\"}} {sum}\n\
                 mcp_store_latency_ms_count{{op=\"{op}\"}} {count}"
            );
        }
    }
}

/// Microseconds as milliseconds, without trailing zeros: `250` → `0.25`,
/// `15000000` → `15000`.
fn ms(us: u64) -> String {
    let (whole, part) = (us / 1000, us % 1000);
    if part == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{part:03}")
            .trim_end_matches('0')
            .to_string()
    }
}

/// A store whose every call is timed into `mcp_store_latency_ms`.
struct Timed {
    store: Box<dyn Store>,
    latency: Arc<StoreLatency>,
}

impl Timed {
    fn time<T>(&mut self, op: StoreOp, call: impl FnOnce(&mut dyn Store) -> T) -> T {
        let started = Instant::now();
        let result = call(self.store.as_mut());
        self.latency.record(op, started);
        result
    }
}

impl Store for Timed {
    fn ask(&mut self, question: &NewQuestion) -> store::Result<(String, bool)> {
        self.time(StoreOp::Ask, |store| store.ask(question))
    }

    fn get(&mut self, id: &str) -> store::Result<Option<Stored>> {
        self.time(StoreOp::Get, |store| store.get(id))
    }

    /// Timed as one get: it is one read.
    fn get_many(&mut self, ids: &[String]) -> store::Result<Vec<Stored>> {
        self.time(StoreOp::Get, |store| store.get_many(ids))
    }

    fn pending(&mut self) -> store::Result<Vec<Stored>> {
        self.time(StoreOp::Pending, |store| store.pending())
    }

    fn history(&mut self, limit: Option<usize>) -> store::Result<Vec<Stored>> {
        self.time(StoreOp::History, |store| store.history(limit))
    }

    fn decide(&mut self, id: &str, decision: &Decision) -> store::Result<Decided> {
        self.time(StoreOp::Decide, |store| store.decide(id, decision))
    }

    fn mark_gone(&mut self, id: &str, reason: &str, at: Millis) -> store::Result<bool> {
        self.time(StoreOp::MarkGone, |store| store.mark_gone(id, reason, at))
    }

    fn mark_back(&mut self, id: &str, at: Millis) -> store::Result<bool> {
        self.time(StoreOp::MarkBack, |store| store.mark_back(id, at))
    }

    fn events(&mut self, id: &str) -> store::Result<Vec<Event>> {
        self.time(StoreOp::Events, |store| store.events(id))
    }

    fn schema_version(&mut self) -> store::Result<i64> {
        self.time(StoreOp::SchemaVersion, |store| store.schema_version())
    }

    /// Not timed: it is `/metrics`' own read, not a call made for a question.
    fn replicas(&mut self) -> store::Result<u64> {
        self.store.replicas()
    }

    fn kind(&self) -> &'static str {
        self.store.kind()
    }

    /// Not timed, nor the next two: the inbox's own re-read every few
    /// seconds (it would make the counts depend on the clock), and `inbox
    /// token`'s writes, which go to the store directly.
    fn tokens(&mut self) -> store::Result<Vec<StoredToken>> {
        self.store.tokens()
    }

    fn add_token(&mut self, token: &StoredToken) -> store::Result<bool> {
        self.store.add_token(token)
    }

    fn remove_token(&mut self, name: &str) -> store::Result<bool> {
        self.store.remove_token(name)
    }

    fn link_key(&mut self) -> store::Result<[u8; store::LINK_KEY_LEN]> {
        self.store.link_key()
    }

    /// Timed as a decide: a vote is a question's write that may decide it.
    fn vote(
        &mut self,
        id: &str,
        vote: &store::NewVote,
        tally: store::Tally,
    ) -> store::Result<store::Voted> {
        self.time(StoreOp::Decide, |store| store.vote(id, vote, tally))
    }

    fn votes(&mut self, id: &str) -> store::Result<Vec<store::NewVote>> {
        self.store.votes(id)
    }

    /// Not timed, nor the next four: read every few seconds, and written
    /// by `inbox rule` and `/api/away`, rarely.
    fn rules(&mut self) -> store::Result<Vec<store::StoredRule>> {
        self.store.rules()
    }

    fn add_rule(&mut self, rule: &store::StoredRule) -> store::Result<bool> {
        self.store.add_rule(rule)
    }

    fn remove_rule(&mut self, id: &str) -> store::Result<bool> {
        self.store.remove_rule(id)
    }

    fn away(&mut self) -> store::Result<Vec<(String, store::Millis)>> {
        self.store.away()
    }

    fn set_away(&mut self, person: &str, since: Option<store::Millis>) -> store::Result<()> {
        self.store.set_away(person, since)
    }

    /// Not timed, nor the next: the inbox's own ladder, not a question's call.
    fn escalate(&mut self, escalation: &store::Escalation) -> store::Result<store::Escalated> {
        self.store.escalate(escalation)
    }

    fn escalations(&mut self, ids: &[String]) -> store::Result<Vec<store::Escalation>> {
        self.store.escalations(ids)
    }
}

fn face_label(face: Option<AskingFace>) -> &'static str {
    face.map_or(UNKNOWN_FACE, AskingFace::as_str)
}

fn header(text: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notify_deliveries_failures_and_drops_by_channel() {
        let metrics = Metrics::default();
        metrics.notify_delivered("ntfy");
        metrics.notify_failed("webhook", "transient");
        metrics.notify_failed("webhook", "transient");
        metrics.notify_failed("email", "permanent");
        metrics.notify_dropped("email", 1);
        metrics.notify_dropped("webhook", 3);
        let text = metrics.render(&SQLITE);
        for line in [
            "# TYPE mcp_notify_delivered_total counter",
            "mcp_notify_delivered_total{channel=\"ntfy\"} 1",
            "# TYPE mcp_notify_failures_total counter",
            "mcp_notify_failures_total{channel=\"webhook\",reason=\"transient\"} 2",
            "mcp_notify_failures_total{channel=\"email\",reason=\"permanent\"} 1",
            "mcp_notify_dropped_total{channel=\"email\"} 1",
            "mcp_notify_dropped_total{channel=\"webhook\"} 3",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
    }

    #[test]
    fn counts_and_a_cumulative_histogram() {
        let metrics = Metrics::default();
        metrics.asked(Some(AskingFace::Mcp));
        metrics.asked(Some(AskingFace::Mcp));
        metrics.asked(None);
        metrics.closed(Some(AskingFace::Mcp), Outcome::Answered, Face::Page, 700);
        metrics.closed(Some(AskingFace::Mcp), Outcome::Answered, Face::Cli, 1_000);
        metrics.closed(None, Outcome::Answered, Face::Page, 99_000_000);
        metrics.closed(Some(AskingFace::Ask), Outcome::TimedOut, Face::Asker, 5_000);
        metrics.asker_gone(Some(AskingFace::Mcp), "away");
        metrics.asker_gone(Some(AskingFace::Mcp), "away");
        metrics.asker_gone(None, "disconnected");
        metrics.error("UNKNOWN_QUESTION");
        metrics.error("UNKNOWN_QUESTION");
        let text = metrics.render(&SQLITE);
        for line in [
            "mcp_tool_calls_total{face=\"ask\"} 0",
            "mcp_tool_calls_total{face=\"execute\"} 0",
            "mcp_tool_calls_total{face=\"mcp\"} 2",
            "mcp_tool_calls_total{face=\"unknown\"} 1",
            "mcp_questions_closed_total{face=\"mcp\",outcome=\"answered\",by=\"page\"} 1",
            "mcp_questions_closed_total{face=\"mcp\",outcome=\"answered\",by=\"cli\"} 1",
            "mcp_questions_closed_total{face=\"ask\",outcome=\"timed_out\",by=\"asker\"} 1",
            "mcp_questions_closed_total{face=\"unknown\",outcome=\"answered\",by=\"page\"} 1",
            "mcp_askers_gone_total{face=\"mcp\",reason=\"away\"} 2",
            "mcp_askers_gone_total{face=\"unknown\",reason=\"disconnected\"} 1",
            "# TYPE mcp_askers_gone_total counter",
            "mcp_errors_total{code=\"UNKNOWN_QUESTION\"} 2",
            "mcp_question_latency_ms_bucket{le=\"1000\"} 2",
            "mcp_question_latency_ms_bucket{le=\"2500\"} 2",
            "mcp_question_latency_ms_bucket{le=\"14400000\"} 2",
            "mcp_question_latency_ms_bucket{le=\"+Inf\"} 3",
            "mcp_question_latency_ms_sum 99001700",
            "mcp_question_latency_ms_count 3",
            "# TYPE mcp_question_latency_ms histogram",
            "# TYPE mcp_errors_total counter",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        assert!(text.ends_with('\n'));
    }

    const SQLITE: StoreGauges = StoreGauges {
        kind: "sqlite",
        reachable: true,
        replicas: Some(1),
    };

    /// The samples of `name` (with their labels) in `text`.
    fn samples<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|line| {
                line.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ']))
            })
            .collect()
    }

    /// Metrics, and a SQLite store in a folder of its own timed into them.
    fn timed_sqlite() -> (Metrics, tempfile::TempDir, Box<dyn Store>) {
        let metrics = Metrics::default();
        let dir = tempfile::tempdir().unwrap();
        let sqlite = store::SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
        let store = metrics.timed(Box::new(sqlite));
        (metrics, dir, store)
    }

    #[test]
    fn store_calls_are_timed_by_operation_in_a_cumulative_histogram() {
        let (metrics, _dir, mut store) = timed_sqlite();
        assert_eq!(store.kind(), "sqlite");
        assert_eq!(store.replicas().unwrap(), 1);
        let text = metrics.render(&SQLITE);
        assert!(
            text.contains("# TYPE mcp_store_latency_ms histogram\n# HELP mcp_store_reachable"),
            "no call yet, no series (a `replicas` read is not timed):\n{text}"
        );
        store.pending().unwrap();
        store.get("00000000").unwrap();
        store.get("00000001").unwrap();
        // Recorded as the sum of what it took: a given time, so the test
        // does not depend on how fast the machine (or an emulator) runs.
        metrics.store_latency.record_micros(StoreOp::Decide, 3_200);
        let text = metrics.render(&SQLITE);
        for line in [
            "# HELP mcp_store_latency_ms Time of each store call the inbox made, in milliseconds, by operation (op).",
            "# TYPE mcp_store_latency_ms histogram",
            "mcp_store_latency_ms_count{op=\"get\"} 2",
            "mcp_store_latency_ms_bucket{op=\"get\",le=\"+Inf\"} 2",
            "mcp_store_latency_ms_bucket{op=\"get\",le=\"15000\"} 2",
            "mcp_store_latency_ms_count{op=\"pending\"} 1",
            "mcp_store_latency_ms_count{op=\"decide\"} 1",
            "mcp_store_latency_ms_bucket{op=\"decide\",le=\"2.5\"} 0",
            "mcp_store_latency_ms_bucket{op=\"decide\",le=\"5\"} 1",
            "mcp_store_latency_ms_bucket{op=\"decide\",le=\"0.25\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        let decide_sum = samples(&text, "mcp_store_latency_ms_sum")
            .into_iter()
            .find_map(|line| line.strip_prefix("mcp_store_latency_ms_sum{op=\"decide\"} "))
            .unwrap();
        let decide_sum: f64 = decide_sum.parse().unwrap();
        assert_eq!(decide_sum, 3.2);
        // Each series: 15 buckets, +Inf, sum, count; in the order of the
        // operations; operations never called are left out.
        assert_eq!(samples(&text, "mcp_store_latency_ms_bucket").len(), 3 * 16);
        let counted: Vec<&str> = samples(&text, "mcp_store_latency_ms_count")
            .into_iter()
            .map(|line| line.split('"').nth(1).unwrap())
            .collect();
        assert_eq!(counted, ["get", "pending", "decide"]);
        // Buckets are cumulative and end at the count.
        let get: Vec<u64> = text
            .lines()
            .filter(|line| line.starts_with("mcp_store_latency_ms_bucket{op=\"get\","))
            .map(|line| line.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(get.windows(2).all(|w| w[0] <= w[1]), "{get:?}");
        assert_eq!(get.last(), Some(&2));
    }

    /// The timed store is the store: each call's answer passes through
    /// whole, and each timed one is counted under its own operation.
    #[test]
    fn a_timed_store_passes_every_call_through() {
        let (metrics, _dir, mut store) = timed_sqlite();
        let question = NewQuestion {
            ask_key: "k".into(),
            input: r#"{"question":"Deploy?"}"#.into(),
            prompt: "{}".into(),
            source: store::Source::default(),
            asked_at: 1_000,
            expires_at: None,
            asked_by: None,
        };
        let (id, new) = store.ask(&question).unwrap();
        assert!(new);
        assert!(store.mark_gone(&id, "closed", 2_000).unwrap());
        assert!(
            !store.mark_gone(&id, "closed", 2_500).unwrap(),
            "gone already"
        );
        assert!(store.mark_back(&id, 3_000).unwrap());
        assert!(!store.mark_back(&id, 3_500).unwrap(), "back already");
        let decision = Decision {
            outcome: Outcome::Answered,
            face: Face::Cli,
            document: "{}".into(),
            at: 3_600,
            by: None,
        };
        assert_eq!(store.decide(&id, &decision).unwrap(), Decided::Now);
        let kinds: Vec<String> = store
            .events(&id)
            .unwrap()
            .into_iter()
            .map(|e| e.kind)
            .collect();
        assert_eq!(kinds, ["asked", "asker_left", "asker_back", "decided"]);
        let history = store.history(None).unwrap();
        assert_eq!(
            history.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            [id.as_str()]
        );
        assert_eq!(store.schema_version().unwrap(), store::SCHEMA_VERSION);
        let token = StoredToken {
            name: "ada".into(),
            role: store::TokenRole::Person,
            digest: vec![7; 32],
            added_at: 4_000,
            groups: Vec::new(),
        };
        assert!(store.add_token(&token).unwrap());
        assert!(!store.add_token(&token).unwrap(), "the name is taken");
        assert_eq!(store.tokens().unwrap(), [token]);
        assert!(store.remove_token("ada").unwrap());
        assert!(!store.remove_token("ada").unwrap());
        let text = metrics.render(&SQLITE);
        for (op, count) in [
            ("ask", 1),
            ("mark_gone", 2),
            ("mark_back", 2),
            ("decide", 1),
            ("events", 1),
            ("history", 1),
            ("schema_version", 1),
        ] {
            let line = format!("mcp_store_latency_ms_count{{op=\"{op}\"}} {count}");
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }

    #[test]
    fn milliseconds_are_written_without_trailing_zeros() {
        assert_eq!(ms(250), "0.25");
        assert_eq!(ms(1_000), "1");
        assert_eq!(ms(2_500), "2.5");
        assert_eq!(ms(1), "0.001");
        assert_eq!(ms(15_000_000), "15000");
        assert_eq!(ms(1_234_567), "1234.567");
    }

    #[test]
    fn the_store_gauges_say_reachable_and_replicas_or_leave_the_count_out() {
        let text = Metrics::default().render(&StoreGauges {
            kind: "postgres",
            reachable: true,
            replicas: Some(3),
        });
        for line in [
            "# TYPE mcp_store_reachable gauge",
            "mcp_store_reachable{store=\"postgres\"} 1",
            "# TYPE mcp_inbox_replicas gauge",
            "mcp_inbox_replicas{store=\"postgres\"} 3",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
        let text = Metrics::default().render(&StoreGauges {
            kind: "postgres",
            reachable: false,
            replicas: None,
        });
        assert_eq!(
            samples(&text, "mcp_store_reachable"),
            ["mcp_store_reachable{store=\"postgres\"} 0"]
        );
        assert!(samples(&text, "mcp_inbox_replicas").is_empty(), "{text}");
        assert!(
            text.contains(
                "# TYPE mcp_inbox_replicas gauge\n# mcp_inbox_replicas left out: the store is unreachable"
            ),
            "{text}"
        );
        assert!(text.ends_with('\n'));
        let text = Metrics::default().render(&SQLITE);
        assert_eq!(
            samples(&text, "mcp_inbox_replicas"),
            ["mcp_inbox_replicas{store=\"sqlite\"} 1"]
        );
    }
}
