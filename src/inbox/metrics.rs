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

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Mutex, MutexGuard};

use serde::Deserialize;

use super::store::{Face, Millis, Outcome};

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

    /// Everything, in the Prometheus text format.
    pub fn render(&self) -> String {
        let counts = self.counts();
        let mut text = String::with_capacity(2048);
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
        text
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
        let text = metrics.render();
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
}
