//! Questions that need approvals (`approvals: {count, from, veto}`): each
//! person's answer is a vote, kept in the store, and the question is
//! answered once `count` distinct persons gave the same answer, or at once
//! when an allowed person chose the `veto` option.
//!
//! Rules (docs/inbox-routing.md, "Two-person rule"):
//! - a vote needs a named person (a person token, or a paired device's
//!   name); the inbox's own token cannot vote (it may still decline or
//!   cancel: that ends the question, as for any question);
//! - `from` limits who may vote (a person's name or, once tokens carry
//!   groups, a group); anyone else gets FORBIDDEN;
//! - a person's later vote replaces theirs while the question is open;
//! - a person's Decline or `inbox cancel` is not a vote and is refused: only
//!   the asker's cancel or the inbox token's decline/cancel end it unanswered;
//! - "the same answer" compares option ids and values per question; notes
//!   are each voter's own and stay in their vote.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Hub, already_decided, rfc3339, store_error, unknown_question};
use crate::store::{self, Decision, Face, NewVote, Outcome, Store, Voted};
use ask_user_core::answer::{Answer, AnswerDocument, AnsweredBy, AnswererKind, Vote};
use ask_user_core::error::{AskError, Detail};
use ask_user_core::model::{Approvals, Prompt, find_choice};

/// The ballot of a pending question as the store has it (`None` for a
/// question that needs no approvals).
pub(super) fn stored_ballot(
    store: &mut dyn store::Store,
    id: &str,
    prompt: &Prompt,
) -> Result<Option<Ballot>, AskError> {
    let Some(approvals) = &prompt.routing.approvals else {
        return Ok(None);
    };
    let votes = store.votes(id).map_err(store_error)?;
    Ok(Some(Ballot::of(approvals.count, &votes)))
}

/// What a vote that did not decide its question returns (the page and
/// `inbox answer` get it instead of an answer document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteRecorded {
    #[serde(rename = "inboxId")]
    pub inbox_id: String,
    /// Always `"recorded"`: tells this reply from an answer document.
    pub vote: String,
    /// The most votes that agree on one answer so far.
    pub approvals: u32,
    /// How many must agree (`approvals.count`).
    pub needed: u32,
    /// Who voted so far, in the order they voted.
    pub voters: Vec<String>,
}

impl VoteRecorded {
    /// The line `inbox answer` writes on stderr beside it.
    pub fn summary(&self) -> String {
        format!(
            "vote recorded, {} of {} approvals (voted: {}); question {} stays open until {} agree",
            self.approvals,
            self.needed,
            self.voters.join(", "),
            self.inbox_id,
            self.needed
        )
    }
}

/// How far a pending question that needs approvals is, as `inbox list` and
/// the page show it ("1 of 2 approvals · voted: ada").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ballot {
    pub needed: u32,
    /// The most votes that agree on one answer so far.
    pub approvals: u32,
    /// Who voted so far, in the order they voted.
    pub voters: Vec<String>,
}

impl Ballot {
    pub fn of(needed: u32, votes: &[NewVote]) -> Ballot {
        Ballot {
            needed,
            approvals: most_agreeing(votes),
            voters: votes.iter().map(|vote| vote.voter.clone()).collect(),
        }
    }
}

/// What answering through the inbox returns: the answer document, or,
/// for a question that needs approvals and is still open, the vote's receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Replied {
    Document(AnswerDocument),
    Vote(VoteRecorded),
}

/// A question's quorum, resolved against its prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quorum {
    pub count: u32,
    pub from: Option<String>,
    /// The first question's id and the veto option's id, when there is a veto.
    pub veto: Option<(String, String)>,
}

impl Quorum {
    /// The quorum of `prompt`, when it needs approvals.
    pub fn of(prompt: &Prompt) -> Option<Quorum> {
        let Approvals { count, from, veto } = prompt.routing.approvals.clone()?;
        let first = prompt.questions.first()?;
        let veto = veto.and_then(|veto| {
            // Checked when the ask was made (`approvals.veto`).
            let choice = find_choice(&first.options, &veto)?;
            Some((first.id.clone(), choice.id.clone()))
        });
        Some(Quorum { count, from, veto })
    }

    /// Whether this vote chose the veto option.
    fn vetoes(&self, answers: &[Answer]) -> bool {
        let Some((question, option)) = &self.veto else {
            return false;
        };
        answers.iter().any(|answer| {
            answer.question_id == *question
                && answer
                    .option_ids
                    .as_ref()
                    .is_some_and(|ids| ids.contains(option))
        })
    }
}

/// Whether person `name` (member of `groups`) may vote under `from`:
/// anyone named when `from` is absent, else that person or group.
pub fn may_vote(from: Option<&str>, name: &str, groups: &[String]) -> bool {
    from.is_none_or(|from| super::routing::reaches(from, name, groups))
}

/// What two votes must share to agree: the chosen option ids, values and
/// custom text per question; never the notes.
fn agreement(answers: &[Answer]) -> Vec<Answer> {
    answers
        .iter()
        .map(|answer| Answer {
            note: None,
            ..answer.clone()
        })
        .collect()
}

/// The outcome of question `id` after `votes` (in the order cast), if it has
/// one now: the first vote choosing the veto option, else the first answer
/// that `count` votes share. `None`: still open.
pub fn tally(quorum: &Quorum, id: &str, votes: &[NewVote], at: store::Millis) -> Option<Decision> {
    let parsed: Vec<(&NewVote, Vec<Answer>)> = votes
        .iter()
        .filter_map(|vote| Some((vote, serde_json::from_str(&vote.answers).ok()?)))
        .collect();
    let veto = parsed
        .iter()
        .position(|(_, answers)| quorum.vetoes(answers));
    let (decider, answers) = match veto {
        Some(index) => (index, agreement(&parsed[index].1)),
        None => {
            // The vote that completed an agreeing set, the earliest such.
            let mut decided = None;
            for (index, (_, answers)) in parsed.iter().enumerate() {
                let key = agreement(answers);
                let same = parsed[..=index]
                    .iter()
                    .filter(|(_, other)| agreement(other) == key)
                    .count();
                if same >= quorum.count as usize {
                    decided = Some((index, key));
                    break;
                }
            }
            decided?
        }
    };
    let cast = parsed
        .iter()
        .enumerate()
        .map(|(index, (vote, answers))| Vote {
            kind: AnswererKind::Person,
            name: vote.voter.clone(),
            channel: super::provenance::channel(vote.face),
            voted_at: rfc3339(vote.at),
            veto: veto == Some(index),
            answers: answers.clone(),
        })
        .collect();
    let document = AnswerDocument::answered(answers)
        .answered_by(AnsweredBy::Votes(cast))
        .with_inbox_id(id);
    let deciding = parsed[decider].0;
    Some(Decision {
        outcome: Outcome::Answered,
        face: deciding.face,
        document: ask_user_core::document_line(&document),
        at,
        by: Some(deciding.voter.clone()),
    })
}

/// The most votes that agree on one answer.
fn most_agreeing(votes: &[NewVote]) -> u32 {
    let keys: Vec<Vec<Answer>> = votes
        .iter()
        .filter_map(|vote| serde_json::from_str::<Vec<Answer>>(&vote.answers).ok())
        .map(|answers| agreement(&answers))
        .collect();
    keys.iter()
        .map(|key| keys.iter().filter(|other| *other == key).count())
        .max()
        .unwrap_or(0) as u32
}

impl Hub {
    /// The decide path of a question that needs approvals: `document` is
    /// what the action resolved to. Returns the answer document when this
    /// ended the question, else a [`VoteRecorded`] line.
    pub(super) fn vote(
        &self,
        store: &mut dyn Store,
        id: &str,
        quorum: Quorum,
        (outcome, document): (Outcome, AnswerDocument),
        face: Face,
        person: Option<&str>,
    ) -> Result<Arc<str>, AskError> {
        let Some(person) = person else {
            if outcome == Outcome::Answered {
                return Err(AskError::Forbidden(Detail::new(format!(
                    "question {id} needs {} approvals: answers are votes, and a vote takes a person's token (`ask_user inbox token add person NAME`); the inbox's own token and a link without a paired device cannot vote (they may decline or cancel it)",
                    quorum.count
                ))));
            }
            return self.close(store, id, outcome, face, document, None);
        };
        match outcome {
            Outcome::Answered => {}
            // Housekeeping of a question whose asker is gone: as for any.
            Outcome::Dismissed => {
                return self.close(store, id, outcome, face, document, Some(person));
            }
            _ => {
                return Err(AskError::Forbidden(Detail::new(format!(
                    "question {id} needs {} approvals: a person's decline or cancel is not a vote and does not end it; vote for an option, or ask its asker or the inbox's owner to cancel it",
                    quorum.count
                ))));
            }
        }
        // `from`: the person's name, or one of their token's groups.
        let groups = self.groups_of(person).unwrap_or_default();
        if !may_vote(quorum.from.as_deref(), person, &groups) {
            return Err(AskError::Forbidden(Detail::new(format!(
                "question {id} takes votes from {:?} only; {person:?} is not one of them",
                quorum.from.as_deref().unwrap_or_default()
            ))));
        }
        let vote = NewVote {
            voter: person.to_string(),
            face,
            answers: serde_json::to_string(&document.answers)
                .map_err(|e| AskError::InternalError(Detail::new(e.to_string())))?,
            at: store::now_ms(),
        };
        let rule = quorum.clone();
        let owner = id.to_string();
        let tallied: store::Tally =
            Arc::new(move |votes| tally(&rule, &owner, votes, store::now_ms()));
        let voted = store.vote(id, &vote, tallied).map_err(store_error)?;
        let mut state = self.state();
        match voted {
            Voted::Counted(votes) => {
                let ballot = Ballot::of(quorum.count, &votes);
                // The pages show the count on the card.
                if let Some(open) = state.open.get_mut(id) {
                    open.ballot = Some(ballot.clone());
                    if let Ok(listed) = self.listed(id, open) {
                        let _ = self.changes.send(super::Change::Updated(listed));
                    }
                }
                Ok(ask_user_core::document_line(&VoteRecorded {
                    inbox_id: id.to_string(),
                    vote: "recorded".into(),
                    approvals: ballot.approvals,
                    needed: ballot.needed,
                    voters: ballot.voters,
                })
                .into())
            }
            Voted::Decided(decision) => {
                state.closed(id);
                Ok(self.closed(&mut state, id, &decision))
            }
            Voted::Already(earlier) => {
                state.closed(id);
                self.closed_elsewhere(&mut state, id, &earlier);
                Err(already_decided(id, &earlier))
            }
            Voted::Unknown => Err(unknown_question(id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_user_core::answer::Channel;

    fn quorum(count: u32, veto: Option<&str>) -> Quorum {
        let prompt = ask_user_core::input::parse(
            format!(
                r#"{{"question":"Ship?","options":["Yes","No"],"approvals":{{"count":{count}{}}}}}"#,
                veto.map(|v| format!(r#","veto":"{v}""#)).unwrap_or_default()
            )
            .as_bytes(),
        )
        .unwrap();
        Quorum::of(&prompt).unwrap()
    }

    fn vote(voter: &str, option: &str, note: Option<&str>, at: store::Millis) -> NewVote {
        let answers = vec![Answer {
            question_id: "q1".into(),
            values: vec![if option == "1" { "Yes" } else { "No" }.into()],
            option_ids: Some(vec![option.into()]),
            custom_text: None,
            note: note.map(str::to_string),
        }];
        NewVote {
            voter: voter.into(),
            face: Face::Page,
            answers: serde_json::to_string(&answers).unwrap(),
            at,
        }
    }

    fn document(decision: &Decision) -> AnswerDocument {
        serde_json::from_str(&decision.document).unwrap()
    }

    #[test]
    fn two_agreeing_votes_decide_and_notes_do_not_count() {
        let q = quorum(2, None);
        let first = [vote("ada", "1", Some("fine by me"), 1)];
        assert_eq!(tally(&q, "abcdefgh", &first, 9), None);
        let split = [vote("ada", "1", None, 1), vote("bob", "2", None, 2)];
        assert_eq!(tally(&q, "abcdefgh", &split, 9), None);
        let votes = [
            vote("ada", "1", Some("fine by me"), 1),
            vote("bob", "2", None, 2),
            vote("cy", "1", Some("ok"), 3),
        ];
        let decision = tally(&q, "abcdefgh", &votes, 9).unwrap();
        assert_eq!(decision.by.as_deref(), Some("cy"));
        assert_eq!(decision.outcome, Outcome::Answered);
        let doc = document(&decision);
        assert!(doc.answered);
        assert_eq!(doc.answers[0].option_ids, Some(vec!["1".to_string()]));
        assert_eq!(
            doc.answers[0].note, None,
            "the agreed answer has no one's note"
        );
        let Some(AnsweredBy::Votes(cast)) = doc.answered_by else {
            panic!("votes expected");
        };
        let names: Vec<&str> = cast.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["ada", "bob", "cy"]);
        assert_eq!(cast[0].answers[0].note.as_deref(), Some("fine by me"));
        assert!(cast.iter().all(|v| !v.veto && v.channel == Channel::Page));
        assert_eq!(most_agreeing(&votes), 2);
    }

    #[test]
    fn a_veto_ends_at_once_and_is_marked() {
        let q = quorum(3, Some("no"));
        assert_eq!(q.veto, Some(("q1".into(), "2".into())));
        let votes = [vote("ada", "1", None, 1), vote("bob", "2", None, 2)];
        let decision = tally(&q, "abcdefgh", &votes, 9).unwrap();
        assert_eq!(decision.by.as_deref(), Some("bob"));
        let doc = document(&decision);
        assert_eq!(doc.answers[0].values, ["No"]);
        let Some(AnsweredBy::Votes(cast)) = doc.answered_by else {
            panic!("votes expected");
        };
        assert_eq!(
            cast.iter().map(|v| v.veto).collect::<Vec<_>>(),
            [false, true]
        );
    }

    #[test]
    fn from_names_who_may_vote() {
        assert!(may_vote(None, "ada", &[]));
        assert!(may_vote(Some("ada"), "ada", &[]));
        assert!(!may_vote(Some("ada"), "bob", &[]));
        assert!(may_vote(Some("reviewers"), "bob", &["reviewers".into()]));
        assert!(!may_vote(Some("reviewers"), "bob", &["ops".into()]));
    }

    mod hub {
        use std::time::Duration;

        use serde_json::value::RawValue;

        use super::super::super::{Action, AskRequest, Hub, Wait};
        use crate::store::{Face, Source, SqliteStore, Store};
        use ask_user_core::error::AskError;
        use std::sync::Arc;

        const DAY: Duration = Duration::from_secs(86_400);
        const TWO: &str =
            r#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":2,"veto":"No"}}"#;

        fn hub(dir: &tempfile::TempDir) -> Arc<Hub> {
            let store = Box::new(SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap());
            Arc::new(Hub::new(store, DAY, DAY).unwrap())
        }

        fn ask(hub: &Hub, input: &str) -> String {
            hub.ask(&AskRequest {
                key: "k".repeat(20),
                input: RawValue::from_string(input.into()).unwrap(),
                source: Source::default(),
                expires_at: None,
                face: None,
            })
            .unwrap()
            .inbox_id
        }

        fn reply(
            hub: &Hub,
            id: &str,
            text: &str,
            person: Option<&str>,
        ) -> Result<Arc<str>, AskError> {
            hub.decide_as(
                id,
                Action::Replies(vec![text.into()], vec![]),
                Face::Cli,
                person,
            )
        }

        fn json(line: &str) -> serde_json::Value {
            serde_json::from_str(line).unwrap()
        }

        #[test]
        fn the_second_agreeing_person_answers_and_the_asker_gets_every_vote() {
            let dir = tempfile::tempdir().unwrap();
            let hub = hub(&dir);
            let id = ask(&hub, TWO);
            let Ok(Wait::Pending(mut waiter)) = hub.wait(&id) else {
                panic!("pending expected");
            };
            let first = json(&reply(&hub, &id, "Yes", Some("ada")).unwrap());
            assert_eq!(first["vote"], "recorded");
            assert_eq!(first["approvals"], 1);
            assert_eq!(first["needed"], 2);
            assert_eq!(first["voters"], serde_json::json!(["ada"]));
            let listed = json(&hub.list()[0]);
            assert_eq!(
                listed["approvals"],
                serde_json::json!({"needed": 2, "approvals": 1, "voters": ["ada"]})
            );
            // The same person again replaces their vote: still one of two.
            let again = json(&reply(&hub, &id, "yes", Some("ada")).unwrap());
            assert_eq!(again["approvals"], 1);
            assert_eq!(again["voters"], serde_json::json!(["ada"]));
            assert!(hub.list().len() == 1, "still pending");
            let done = json(&reply(&hub, &id, "1", Some("bob")).unwrap());
            assert_eq!(done["answered"], true);
            assert_eq!(done["answers"][0]["values"], serde_json::json!(["Yes"]));
            let votes = done["answeredBy"].as_array().unwrap();
            assert_eq!(votes.len(), 2);
            assert_eq!(votes[0]["name"], "ada");
            assert_eq!(votes[1]["name"], "bob");
            assert_eq!(votes[1]["kind"], "person");
            assert_eq!(votes[1]["channel"], "cli");
            assert!(votes[1].get("veto").is_none());
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let got = rt.block_on(waiter.outcome()).unwrap();
            assert_eq!(json(&got), done);
            // A late vote is refused as for any closed question.
            let late = reply(&hub, &id, "No", Some("cy")).unwrap_err();
            assert_eq!(late.code(), "ALREADY_ANSWERED");
            // History keeps who decided it.
            let history = json(&hub.history(None).unwrap()[0]);
            assert_eq!(history["decidedBy"], "bob");
        }

        #[test]
        fn a_vote_updates_the_card_and_is_no_new_question() {
            let dir = tempfile::tempdir().unwrap();
            let hub = hub(&dir);
            let id = ask(&hub, TWO);
            let mut changes = hub.changes();
            reply(&hub, &id, "Yes", Some("ada")).unwrap();
            // Notifications (--notify, --notify-to) hear of new questions
            // only: a vote must not send the question to everyone again.
            let Ok(crate::hub::Change::Updated(listed)) = changes.try_recv() else {
                panic!("the card is updated");
            };
            assert_eq!(json(&listed)["approvals"]["approvals"], 1);
            assert!(changes.try_recv().is_err());
        }

        #[test]
        fn a_veto_ends_it_at_once() {
            let dir = tempfile::tempdir().unwrap();
            let hub = hub(&dir);
            let id = ask(&hub, TWO);
            reply(&hub, &id, "Yes", Some("ada")).unwrap();
            let done = json(&reply(&hub, &id, "No", Some("bob")).unwrap());
            assert_eq!(done["answers"][0]["values"], serde_json::json!(["No"]));
            assert_eq!(done["answeredBy"][1]["veto"], true);
            assert!(done["answeredBy"][0].get("veto").is_none());
            assert!(hub.list().is_empty());
        }

        #[test]
        fn who_may_not_vote_is_refused_and_nothing_is_kept() {
            let dir = tempfile::tempdir().unwrap();
            let hub = hub(&dir);
            let id = ask(
                &hub,
                r#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":2,"from":"ada"}}"#,
            );
            let err = reply(&hub, &id, "Yes", Some("bob")).unwrap_err();
            assert_eq!(err.code(), "FORBIDDEN");
            assert!(
                err.to_string().contains("takes votes from \"ada\" only"),
                "{err}"
            );
            let err = reply(&hub, &id, "Yes", None).unwrap_err();
            assert_eq!(err.code(), "FORBIDDEN");
            assert!(err.to_string().contains("the inbox's own token"), "{err}");
            for action in [Action::Decline, Action::Cancel] {
                let err = hub
                    .decide_as(&id, action, Face::Page, Some("ada"))
                    .unwrap_err();
                assert_eq!(err.code(), "FORBIDDEN");
                assert!(err.to_string().contains("is not a vote"), "{err}");
            }
            let kept = hub.with_store(|store| store.votes(&id)).unwrap();
            assert!(kept.is_empty());
            // A single allowed vote of two does not decide; the inbox's own
            // token may still decline it.
            reply(&hub, &id, "Yes", Some("ada")).unwrap();
            let declined = json(&hub.decide(&id, Action::Decline, Face::Page).unwrap());
            assert_eq!(declined["reason"], "declined");
            assert!(declined.get("answeredBy").is_none());
        }

        #[test]
        fn votes_through_two_hubs_on_one_file_count_once_each() {
            let dir = tempfile::tempdir().unwrap();
            let (one, two) = (hub(&dir), hub(&dir));
            let id = ask(
                &one,
                r#"{"question":"Ship?","options":["Yes","No"],"approvals":{"count":3}}"#,
            );
            reply(&one, &id, "Yes", Some("ada")).unwrap();
            let second = json(&reply(&two, &id, "Yes", Some("bob")).unwrap());
            assert_eq!(second["approvals"], 2);
            // A replica that starts now reads the votes from the store.
            let three = hub(&dir);
            assert_eq!(
                json(&three.list()[0])["approvals"]["voters"],
                serde_json::json!(["ada", "bob"])
            );
            // One that held the question hears of them on a refresh (NOTIFY).
            one.refresh(&id).unwrap();
            assert_eq!(json(&one.list()[0])["approvals"]["approvals"], 2);
            let done = json(&reply(&one, &id, "Yes", Some("cy")).unwrap());
            assert_eq!(done["answeredBy"].as_array().unwrap().len(), 3);
            let late = reply(&two, &id, "Yes", Some("dee")).unwrap_err();
            assert_eq!(late.code(), "ALREADY_ANSWERED");
            let mut store = SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
            assert_eq!(
                store.votes(&id).unwrap().len(),
                3,
                "a late vote is not kept"
            );
        }
    }
}
