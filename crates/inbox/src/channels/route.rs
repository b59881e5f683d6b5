//! Who hears of a question. Without a policy (`--policy`),
//! every question goes to every `--notify-to` channel, as before. With one:
//! - a question with `to` goes to the contacts (`[people.NAME] notify`) of
//!   the people `to` reaches ([`Hub::people_for`]: a person token's name or
//!   group), and to nobody else; a `to` that reaches nobody (or people
//!   without contacts) is notified to nobody, and nothing is logged: the
//!   asker chose the name, and the operator's log is no place to confirm it;
//! - a question without `to` goes to `--notify-to`, as before;
//! - an escalation step ([`super::super::hub::escalation`]) goes to the
//!   contacts of the people its `notify` reaches, only those of kind `via`
//!   when it names one.
//!
//! A close goes to the channels that were told of the question (a webhook
//! and a Matrix room say it ended), else to `--notify-to`.
//!
//! Each contact has its own queue and worker, as a `--notify-to` channel
//! does ([`super::work`]); a contact named by several people is one queue.
//! A policy reloaded replaces the contacts: the old queues are drained by
//! their workers, which then end, and the old Matrix listeners stop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::policy_file::Loaded;
use super::{Channel, Context, Links, Notice, QUEUE, dispatch, matrix, work};
use crate::contact::{Kind, Spec};
use crate::hub::{Hub, escalation};
use crate::policy::Policy;

/// A channel and the sender of its queue.
pub type Queue = (Arc<Channel>, mpsc::Sender<Arc<Notice>>);

/// Starts `channel`'s worker (and a Matrix room's reply listener): the
/// worker ends once every sender of its queue is dropped.
fn start(channel: Channel, hub: &Arc<Hub>, context: &Context) -> (Queue, Option<AbortHandle>) {
    let channel = Arc::new(channel);
    let (sender, receiver) = mpsc::channel(QUEUE);
    let listener = match &*channel {
        // Replies come back through its own listener (wt-m's).
        Channel::Matrix(target) => {
            Some(tokio::spawn(matrix::listen(Arc::clone(target), Arc::clone(hub))).abort_handle())
        }
        _ => None,
    };
    tokio::spawn(work(
        Arc::clone(&channel),
        receiver,
        Arc::clone(hub),
        context.clone(),
    ));
    ((channel, sender), listener)
}

/// The policy in force, with its people's contacts started.
struct Contacts {
    policy: Arc<Policy>,
    /// Once per distinct contact.
    queues: Vec<(Spec, Queue)>,
    /// Each person's contacts, as indexes into `queues`.
    by_person: HashMap<String, Vec<usize>>,
    listeners: Vec<AbortHandle>,
}

impl Drop for Contacts {
    fn drop(&mut self) {
        for listener in &self.listeners {
            listener.abort();
        }
    }
}

/// Where each notice goes ([`dispatch`] asks it).
pub trait Targets: Send + Sync {
    /// The channels that hear of new question `id`, addressed `to`.
    fn asked(&self, id: &str, to: Option<&str>) -> Vec<Queue>;
    /// The channels that hear that question `id` ended.
    fn closed(&self, id: &str) -> Vec<Queue>;
    /// Every channel (to count what a lag lost).
    fn all(&self) -> Vec<Queue>;
}

/// No policy: everyone hears of everything (the `--notify-to` channels).
impl Targets for Vec<Queue> {
    fn asked(&self, _: &str, _: Option<&str>) -> Vec<Queue> {
        self.clone()
    }

    fn closed(&self, _: &str) -> Vec<Queue> {
        self.clone()
    }

    fn all(&self) -> Vec<Queue> {
        self.clone()
    }
}

/// Who was told of a question, besides `--notify-to`.
#[derive(Default)]
struct Told {
    /// Routed by its `to`: `--notify-to` never heard of it.
    routed: bool,
    queues: Vec<Queue>,
}

/// The `--notify-to` channels and, with a policy, the people's contacts.
pub struct Router {
    everyone: Vec<Queue>,
    contacts: Mutex<Option<Arc<Contacts>>>,
    /// The contacts each question was told through, for its close: a
    /// question routed by `to` from its ask, any other once a step fired.
    told: Mutex<HashMap<String, Told>>,
    hub: Arc<Hub>,
    links: Arc<dyn Links>,
    context: Context,
}

impl Router {
    /// Starts the `--notify-to` channels' workers (inside the runtime).
    pub fn new(
        channels: Vec<Channel>,
        hub: Arc<Hub>,
        links: Arc<dyn Links>,
        context: Context,
    ) -> Arc<Router> {
        let everyone = channels
            .into_iter()
            .map(|channel| start(channel, &hub, &context).0)
            .collect();
        Arc::new(Router {
            everyone,
            contacts: Mutex::new(None),
            told: Mutex::new(HashMap::new()),
            hub,
            links,
            context,
        })
    }

    /// Puts `loaded` in force: its contacts' workers start; the last
    /// policy's drain what they hold, then end.
    pub fn set_policy(&self, loaded: Loaded) {
        let mut queues: Vec<(Spec, Queue)> = Vec::new();
        let mut by_person = HashMap::new();
        let mut listeners = Vec::new();
        for (name, contacts) in loaded.contacts {
            let mut mine = Vec::with_capacity(contacts.len());
            for (spec, channel) in contacts {
                let index = match queues.iter().position(|(known, _)| *known == spec) {
                    Some(index) => index,
                    None => {
                        let (queue, listener) = start(channel, &self.hub, &self.context);
                        listeners.extend(listener);
                        queues.push((spec, queue));
                        queues.len() - 1
                    }
                };
                if !mine.contains(&index) {
                    mine.push(index);
                }
            }
            by_person.insert(name, mine);
        }
        let contacts = Contacts {
            policy: Arc::new(loaded.policy),
            queues,
            by_person,
            listeners,
        };
        *self.contacts.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(contacts));
    }

    /// The policy in force (`None`: the inbox has none).
    pub fn policy(&self) -> Option<Arc<Policy>> {
        self.current().map(|contacts| Arc::clone(&contacts.policy))
    }

    fn current(&self) -> Option<Arc<Contacts>> {
        self.contacts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The contacts of the people `to` reaches, of kind `via` when given,
    /// each once.
    fn reached(contacts: &Contacts, hub: &Hub, to: &str, via: Option<Kind>) -> Vec<Queue> {
        let mut indexes: Vec<usize> = hub
            .people_for(to)
            .iter()
            .filter_map(|name| contacts.by_person.get(name))
            .flatten()
            .copied()
            .filter(|&index| via.is_none_or(|via| contacts.queues[index].0.kind == via))
            .collect();
        indexes.sort_unstable();
        indexes.dedup();
        indexes
            .into_iter()
            .map(|index| contacts.queues[index].1.clone())
            .collect()
    }

    fn remember(&self, id: &str, routed: bool, queues: &[Queue]) {
        if !routed && queues.is_empty() {
            return;
        }
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        let known = told.entry(id.to_string()).or_default();
        known.routed |= routed;
        for queue in queues {
            if !known
                .queues
                .iter()
                .any(|(channel, _)| Arc::ptr_eq(channel, &queue.0))
            {
                known.queues.push(queue.clone());
            }
        }
    }

    /// Step `step` (1-based) of the ladder fired for pending question
    /// `listed` (its [`crate::hub::Listed`] JSON): its people's
    /// contacts are told. Returns how many contacts it was queued for.
    pub fn escalated(&self, listed: &str, step: usize, notify: &str, via: Option<Kind>) -> usize {
        let Some(contacts) = self.current() else {
            return 0;
        };
        let Some(mut question) = super::read_question(listed, &*self.links) else {
            return 0;
        };
        question.escalation = Some(super::Escalation {
            step,
            notify: notify.to_string(),
        });
        let queues = Router::reached(&contacts, &self.hub, notify, via);
        self.remember(&question.inbox_id, false, &queues);
        let notice = Arc::new(Notice::Asked(question));
        super::queue_all(&notice, &queues, self.hub.metrics());
        queues.len()
    }

    /// Runs the policy's escalation ladder for ever: every
    /// [`escalation::TICK`], the steps that came due fire (off the server's
    /// thread: a store call each), and those this replica fired are
    /// notified.
    pub async fn escalate(self: Arc<Self>) {
        let mut every = tokio::time::interval(escalation::TICK);
        loop {
            every.tick().await;
            let Some(policy) = self.policy() else {
                continue;
            };
            if policy.escalate.is_empty() {
                continue;
            }
            let hub = Arc::clone(&self.hub);
            let fired = ask_user_server::blocking::blocking(move || {
                hub.escalate_due(&policy.escalate, crate::store::now_ms())
            })
            .await
            .unwrap_or_default();
            for step in fired {
                self.escalated(&step.listed, step.step, &step.notify, step.via);
            }
        }
    }

    /// Delivers every notice from now on, until the hub's changes end.
    pub async fn run(self: Arc<Self>) {
        let changes = self.hub.changes();
        let links = Arc::clone(&self.links);
        let hub = Arc::clone(&self.hub);
        dispatch(changes, &*self, hub.metrics(), &*links).await;
    }
}

impl Targets for Router {
    fn asked(&self, id: &str, to: Option<&str>) -> Vec<Queue> {
        let (Some(contacts), Some(to)) = (self.current(), to) else {
            return self.everyone.clone();
        };
        let queues = Router::reached(&contacts, &self.hub, to, None);
        self.remember(id, true, &queues);
        queues
    }

    fn closed(&self, id: &str) -> Vec<Queue> {
        let told = self
            .told
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
            .unwrap_or_default();
        let mut queues = if told.routed {
            Vec::new()
        } else {
            self.everyone.clone()
        };
        queues.extend(told.queues);
        queues
    }

    fn all(&self) -> Vec<Queue> {
        let mut all = self.everyone.clone();
        if let Some(contacts) = self.current() {
            all.extend(contacts.queues.iter().map(|(_, queue)| queue.clone()));
        }
        all
    }
}
