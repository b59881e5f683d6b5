//! The Matrix channel (`inbox --notify-to matrix=…`, src/inbox/channels/matrix.rs)
//! on a real Synapse, with a real client (matrix-nio) for the person:
//! tests/common/matrix.rs. Without Synapse (.ci/setup-matrix.sh) these tests
//! are counted as ignored (a failure under CI).

mod common;

use std::time::Duration;

use common::matrix::{Synapse, To};

/// The helper itself: the bot's message reaches the person's client, in
/// and out of a thread; an outsider (not in the room) sees nothing.
fn synapse_carries_the_bots_message_to_the_person() {
    let synapse = Synapse::start();
    let root = synapse.send_as(&synapse.bot, "Which one? 1. a 2. b", To::Room);
    let seen = synapse.person_waits("Which one?", None);
    assert_eq!(seen["event_id"], root.as_str());
    synapse.send_as(&synapse.person, "2", To::Thread(&root));
    let reply = synapse
        .wait_as(
            &synapse.bot,
            &synapse.person.id,
            "2",
            Some(&root),
            Duration::from_secs(30),
        )
        .expect("the bot sees the person's reply in the thread");
    assert_eq!(reply["content"]["m.relates_to"]["rel_type"], "m.thread");
    let outsider = synapse.wait_as(
        &synapse.outsider,
        &synapse.bot.id,
        "Which one?",
        None,
        Duration::from_secs(2),
    );
    assert!(outsider.is_none(), "an outsider saw the room: {outsider:?}");
}

common::harness::main!(synapse_carries_the_bots_message_to_the_person);
