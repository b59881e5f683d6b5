//! Codex's hooks in `config.toml`, through toml_edit (comments, blank lines
//! and key order stay), in the shape Codex 0.169.0 reads:
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "request_user_input"
//!
//! [[hooks.PreToolUse.hooks]]
//! type = "command"
//! command = "/opt/bin/ask_user hook codex --timeout 1800"
//! timeout = 1830
//! ```
//!
//! The same rules as the JSON hosts' ([`super::json`]): ours are found by
//! their command, the rest stays, a second run changes nothing.

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, TableLike};

use super::{Road, hook_command, hook_timeout, ours};
use crate::setup::Malformed;
use crate::setup::launch::Launch;

fn parse(text: &str, road: &Road) -> Result<DocumentMut, Malformed> {
    let document = toml_edit::Document::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        Malformed::at(text, offset, e.message().trim().to_string())
    })?;
    let at = |item: &Item| item.span().map_or(0, |span| span.start);
    if let Some(hooks) = document.get("hooks") {
        let Some(hooks) = hooks.as_table_like() else {
            return Err(Malformed::at(
                text,
                at(hooks),
                "\"hooks\" must be a table ([hooks] or { … })".into(),
            ));
        };
        for event in road.events() {
            if let Some(groups) = hooks.get(event.name)
                && !groups.is_array_of_tables()
            {
                return Err(Malformed::at(
                    text,
                    at(groups),
                    format!(
                        "\"hooks.{0}\" must be written as [[hooks.{0}]] tables (setup edits only that form)",
                        event.name
                    ),
                ));
            }
        }
    }
    Ok(document.into_mut())
}

/// The event's groups, if `hooks.EVENT` is there.
fn groups_mut<'a>(document: &'a mut DocumentMut, event: &str) -> Option<&'a mut ArrayOfTables> {
    document
        .get_mut("hooks")?
        .as_table_like_mut()?
        .get_mut(event)?
        .as_array_of_tables_mut()
}

/// Where our hooks are: (group, hook) indexes, in order.
fn find(road: &Road, groups: &ArrayOfTables) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (h, hook) in hooks_of(group).iter().enumerate() {
            let command = hook.get("command").and_then(Item::as_str);
            if command.is_some_and(|command| ours(road, command)) {
                found.push((g, h));
            }
        }
    }
    found
}

/// A group's hooks as tables (`[[…hooks]]` or an inline array of tables).
fn hooks_of(group: &Table) -> Vec<&dyn TableLike> {
    match group.get("hooks") {
        Some(Item::ArrayOfTables(tables)) => tables.iter().map(|t| t as &dyn TableLike).collect(),
        Some(Item::Value(toml_edit::Value::Array(array))) => array
            .iter()
            .filter_map(|value| value.as_inline_table().map(|t| t as &dyn TableLike))
            .collect(),
        _ => Vec::new(),
    }
}

fn matcher(group: &Table) -> Option<&str> {
    group
        .get("matcher")
        .and_then(Item::as_str)
        .filter(|matcher| !matcher.is_empty())
}

/// Takes the hook at `index` out of `group`; whether that emptied it.
fn take_out(group: &mut Table, index: usize) -> bool {
    match group.get_mut("hooks") {
        Some(Item::ArrayOfTables(tables)) => {
            tables.remove(index);
            tables.is_empty()
        }
        Some(Item::Value(toml_edit::Value::Array(array))) => {
            // Only inline tables were counted: the index among them.
            let at = array
                .iter()
                .enumerate()
                .filter(|(_, value)| value.is_inline_table())
                .nth(index)
                .map(|(at, _)| at);
            if let Some(at) = at {
                array.remove(at);
            }
            array.is_empty()
        }
        _ => false,
    }
}

/// Takes out every hook of ours in `spots` (group, hook), from the last, and
/// the groups that left empty.
fn take_all_out(groups: &mut ArrayOfTables, spots: &[(usize, usize)]) {
    for &(g, h) in spots.iter().rev() {
        let emptied = groups.get_mut(g).is_some_and(|group| take_out(group, h));
        if emptied {
            groups.remove(g);
        }
    }
}

fn our_hook(road: &Road, launch: &Launch) -> Table {
    let mut hook = Table::new();
    hook.insert("type", toml_edit::value("command"));
    hook.insert("command", toml_edit::value(hook_command(road, launch)));
    hook.insert("timeout", toml_edit::value(hook_timeout(road) as i64));
    hook
}

/// `text` with `road`'s hooks (see [`super::set`]).
pub(super) fn set(text: &str, road: &Road, launch: &Launch) -> Result<String, Malformed> {
    let mut document = parse(text, road)?;
    let wanted = our_hook(road, launch);
    // toml_edit puts a new [[table]] right under the line before it.
    let spaced = !text.trim().is_empty();
    let mut changed = false;
    for event in road.events() {
        if groups_mut(&mut document, event.name).is_none() {
            if document.get("hooks").is_none() {
                let mut hooks = Table::new();
                hooks.set_implicit(true);
                document.insert("hooks", Item::Table(hooks));
            }
            let Some(hooks) = document.get_mut("hooks").and_then(Item::as_table_like_mut) else {
                unreachable!("parse checked that hooks is a table")
            };
            hooks.insert(event.name, Item::ArrayOfTables(ArrayOfTables::new()));
        }
        let Some(groups) = groups_mut(&mut document, event.name) else {
            unreachable!("made above")
        };
        let found = find(road, groups);
        let keeper = found
            .iter()
            .position(|&(g, _)| groups.get(g).and_then(matcher) == event.matcher);
        let others: Vec<_> = found
            .iter()
            .enumerate()
            .filter(|&(n, _)| Some(n) != keeper)
            .map(|(_, &spot)| spot)
            .collect();
        match keeper.map(|n| found[n]) {
            Some((g, h)) => {
                let hook = groups.get_mut(g).and_then(|group| nth_hook_mut(group, h));
                if let Some(hook) = hook {
                    for (key, value) in wanted.iter() {
                        let current = hook.get(key).and_then(Item::as_value);
                        let holds = match (current, value.as_value()) {
                            (Some(current), Some(value)) => same(current, value),
                            _ => false,
                        };
                        if !holds {
                            hook.insert(key, value.clone());
                            changed = true;
                        }
                    }
                }
            }
            None => {
                let mut group = Table::new();
                if let Some(matcher) = event.matcher {
                    group.insert("matcher", toml_edit::value(matcher));
                }
                let mut hook = wanted.clone();
                if spaced {
                    // A blank line before each of our headers, set on our
                    // tables alone: the person's keep their own spacing.
                    group.decor_mut().set_prefix("\n");
                    hook.decor_mut().set_prefix("\n");
                }
                let mut hooks = ArrayOfTables::new();
                hooks.push(hook);
                group.insert("hooks", Item::ArrayOfTables(hooks));
                groups.push(group);
                changed = true;
            }
        }
        if !others.is_empty() {
            take_all_out(groups, &others);
            changed = true;
        }
    }
    // Nothing to change: the text as it is (toml_edit does not give every
    // file back byte for byte).
    if !changed {
        return Ok(text.to_string());
    }
    Ok(document.to_string())
}

fn nth_hook_mut(group: &mut Table, index: usize) -> Option<&mut dyn TableLike> {
    match group.get_mut("hooks")? {
        Item::ArrayOfTables(tables) => tables.get_mut(index).map(|t| t as &mut dyn TableLike),
        Item::Value(toml_edit::Value::Array(array)) => array
            .iter_mut()
            .filter_map(|value| value.as_inline_table_mut())
            .nth(index)
            .map(|t| t as &mut dyn TableLike),
        _ => None,
    }
}

fn same(current: &toml_edit::Value, wanted: &toml_edit::Value) -> bool {
    match (current, wanted) {
        (toml_edit::Value::String(a), toml_edit::Value::String(b)) => a.value() == b.value(),
        (toml_edit::Value::Integer(a), toml_edit::Value::Integer(b)) => a.value() == b.value(),
        (toml_edit::Value::Float(a), toml_edit::Value::Integer(b)) => {
            *a.value() == *b.value() as f64
        }
        _ => false,
    }
}

/// `text` without `road`'s hooks (see [`super::remove`]).
pub(super) fn remove(text: &str, road: &Road) -> Result<String, Malformed> {
    let mut document = parse(text, road)?;
    let mut removed = false;
    for event in road.events() {
        let Some(groups) = groups_mut(&mut document, event.name) else {
            continue;
        };
        let found = find(road, groups);
        if found.is_empty() {
            continue;
        }
        removed = true;
        take_all_out(groups, &found);
        if groups.is_empty()
            && let Some(hooks) = document.get_mut("hooks").and_then(Item::as_table_like_mut)
        {
            hooks.remove(event.name);
        }
    }
    if !removed {
        return Ok(text.to_string());
    }
    // A `[hooks]` the person wrote stays, even empty; the one that only
    // held ours (never written out) goes.
    let emptied = document
        .get("hooks")
        .and_then(Item::as_table)
        .is_some_and(|hooks| hooks.is_empty() && hooks.is_implicit());
    if emptied {
        document.remove("hooks");
    }
    Ok(document.to_string())
}

/// Whether `text` holds every hook of `road`.
pub(super) fn configured(text: &str, road: &Road) -> Result<bool, Malformed> {
    let mut document = parse(text, road)?;
    Ok(road.events().iter().all(|event| {
        groups_mut(&mut document, event.name).is_some_and(|groups| !find(road, groups).is_empty())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Host;
    use crate::setup::hooks::road;

    fn native() -> Launch {
        Launch {
            command: "/opt/bin/ask_user".into(),
            args: vec![],
        }
    }

    const CONFIG: &str = r#"# my Codex
model = "o3"

[mcp_servers.other]
command = "x" # keep

[[hooks.PreToolUse]]
matcher = "shell"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/bin/check"
"#;

    #[test]
    fn codex_hooks_are_tables_merged_idempotent_and_removable() {
        let codex = road(Host::Codex).unwrap();
        let edited = set(CONFIG, codex, &native()).unwrap();
        assert!(edited.starts_with(CONFIG), "{edited}");
        assert_eq!(
            &edited[CONFIG.len()..],
            "\n[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/opt/bin/ask_user hook codex --timeout 1800\"\ntimeout = 1830\n"
        );
        assert!(configured(&edited, codex).unwrap());
        assert!(!configured(CONFIG, codex).unwrap());
        assert_eq!(set(&edited, codex, &native()).unwrap(), edited);
        assert_eq!(remove(&edited, codex).unwrap(), CONFIG);
        assert_eq!(remove(CONFIG, codex).unwrap(), CONFIG);
        // From nothing, and back to nothing.
        let fresh = set("", codex, &native()).unwrap();
        assert!(fresh.starts_with("[[hooks.PreToolUse]]\n"), "{fresh}");
        assert_eq!(remove(&fresh, codex).unwrap().trim(), "");
        // A stale timeout is corrected in place.
        let stale = edited.replace("timeout = 1830", "timeout = 60");
        assert_eq!(set(&stale, codex, &native()).unwrap(), edited);
    }

    /// The layout docs/hosts.md shows: no blank line anywhere, a comment
    /// right above a header. Setup adds ours and changes none of the
    /// person's bytes; `--remove` gives back the file byte for byte.
    #[test]
    fn codex_hooks_keep_a_layout_without_blank_lines_byte_for_byte() {
        let codex = road(Host::Codex).unwrap();
        let text = "# mine\n[[hooks.PreToolUse]]\nmatcher = \"shell\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\n# after\n[[hooks.PreToolUse.hooks]]\ncommand = \"y\"\n[tui]\nnotifications = true\n";
        let edited = set(text, codex, &native()).unwrap();
        let ours = "\n[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/opt/bin/ask_user hook codex --timeout 1800\"\ntimeout = 1830\n";
        assert_eq!(
            edited,
            text.replace("[tui]", &format!("{}[tui]", &ours[1..]))
                .replace(
                    "\"y\"\n[[hooks.PreToolUse]]",
                    "\"y\"\n\n[[hooks.PreToolUse]]"
                )
        );
        assert_eq!(remove(&edited, codex).unwrap(), text);
        // At the end of the file, and with no newline at its end (the one
        // line setup had to end stays ended).
        let short = "[[hooks.PreToolUse]]\nmatcher = \"shell\"\n[[hooks.PreToolUse.hooks]]\ncommand = \"x\"\n";
        let edited = set(short, codex, &native()).unwrap();
        assert_eq!(edited, format!("{short}{ours}"));
        assert_eq!(remove(&edited, codex).unwrap(), short);
        let unended = short.trim_end();
        let edited = set(unended, codex, &native()).unwrap();
        assert_eq!(edited, format!("{short}{ours}"));
        assert_eq!(remove(&edited, codex).unwrap(), short);
    }

    #[test]
    fn codex_hooks_written_inline_are_a_config_error_at_their_place() {
        let codex = road(Host::Codex).unwrap();
        let error = set("hooks = { PreToolUse = [] }\n", codex, &native()).unwrap_err();
        assert_eq!((error.line, error.column), (1, 24), "{error:?}");
        assert!(error.message.contains("[[hooks.PreToolUse]]"), "{error:?}");
        let error = remove("hooks = 3\n", codex).unwrap_err();
        assert!(error.message.contains("\"hooks\" must be a table"));
    }

    /// A hook of ours with an old command is corrected in place; one under
    /// another matcher, or a second one, goes (the person's hook beside it
    /// stays).
    #[test]
    fn a_stale_codex_hook_is_corrected_and_duplicates_go() {
        let codex = road(Host::Codex).unwrap();
        let edited = set(CONFIG, codex, &native()).unwrap();
        let moved = edited.replace("/opt/bin/ask_user", "/old/ask_user");
        assert_eq!(set(&moved, codex, &native()).unwrap(), edited);
        let stray = "[[hooks.PreToolUse]]\nmatcher = \"shell\"\n\n[[hooks.PreToolUse.hooks]]\ncommand = \"/old/ask_user hook codex\"\n\n[[hooks.PreToolUse.hooks]]\ncommand = \"mine\"\n";
        let twice = format!("{stray}{}", &edited[CONFIG.len()..]);
        let fixed = set(&twice, codex, &native()).unwrap();
        assert_eq!(fixed.matches("hook codex").count(), 1, "{fixed}");
        assert!(fixed.contains("command = \"mine\""), "{fixed}");
        assert!(
            fixed.contains("matcher = \"request_user_input\""),
            "{fixed}"
        );
        assert!(configured(&fixed, codex).unwrap());
    }

    /// A right value written in another form (a literal string, a hex
    /// number) is left as written: only a wrong one is rewritten.
    #[test]
    fn a_right_string_in_another_form_stays_as_written() {
        let codex = road(Host::Codex).unwrap();
        let edited = set(CONFIG, codex, &native()).unwrap();
        let literal = edited.replace(
            "type = \"command\"\ncommand = \"/opt",
            "type = 'command'\ncommand = \"/opt",
        );
        assert_ne!(literal, edited);
        assert_eq!(set(&literal, codex, &native()).unwrap(), literal);
    }

    #[test]
    fn a_right_number_in_another_form_stays_as_written() {
        let codex = road(Host::Codex).unwrap();
        let edited = set(CONFIG, codex, &native()).unwrap();
        let hex = edited.replace("timeout = 1830", "timeout = 0x726");
        assert_ne!(hex, edited);
        assert_eq!(set(&hex, codex, &native()).unwrap(), hex);
    }

    /// A person may write a group's hooks as an inline array of tables:
    /// ours there is found, corrected in place and taken out like a
    /// `[[…hooks]]` table, and the person's beside it stay.
    #[test]
    fn codex_hooks_written_as_an_inline_array_are_ours_all_the_same() {
        let codex = road(Host::Codex).unwrap();
        let ours = "{ type = \"command\", command = \"/opt/bin/ask_user hook codex --timeout 1800\", timeout = 1830 }";
        let theirs = "{ type = \"command\", command = \"x\" }";
        let text = format!(
            "[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\nhooks = [{theirs}, \"note\", {ours}]\n"
        );
        assert!(configured(&text, codex).unwrap());
        assert_eq!(set(&text, codex, &native()).unwrap(), text);
        // A timeout written as a float that is right stays as written.
        let float = text.replace("timeout = 1830", "timeout = 1830.0");
        assert_eq!(set(&float, codex, &native()).unwrap(), float);
        // A stale one is corrected in the inline table itself.
        let stale = text.replace("timeout = 1830", "timeout = 60");
        let fixed = set(&stale, codex, &native()).unwrap();
        assert!(fixed.contains("\"note\", { type = \"command\", command = \"/opt/bin/ask_user hook codex --timeout 1800\", timeout = 1830"), "{fixed}");
        assert!(!fixed.contains("timeout = 60"), "{fixed}");
        // Out goes ours alone: the index counts the inline tables only.
        assert_eq!(
            remove(&text, codex).unwrap(),
            format!(
                "[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\nhooks = [{theirs}, \"note\"]\n"
            )
        );
        // Ours alone in the array: its group goes, and the event with it.
        let alone =
            format!("[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\nhooks = [{ours}]\n");
        assert_eq!(remove(&alone, codex).unwrap(), "");
    }

    mod layouts {
        use super::*;
        use proptest::prelude::*;

        /// One block of a person's config.toml, as lines.
        fn block() -> impl Strategy<Value = Vec<String>> {
            let note = prop::option::of(Just("# a note".to_string()));
            let command = prop_oneof![Just("x"), Just("~/bin/check"), Just("notify-send asked")];
            let hook = (note.clone(), command.clone(), any::<bool>()).prop_map(
                |(note, command, typed)| {
                    let mut lines: Vec<String> = note.into_iter().collect();
                    lines.push("[[hooks.EVENT.hooks]]".into());
                    if typed {
                        lines.push("type = \"command\"".into());
                    }
                    lines.push(format!("command = \"{command}\""));
                    lines
                },
            );
            let group = (
                prop_oneof![Just("PreToolUse"), Just("PostToolUse"), Just("Stop")],
                note.clone(),
                prop::option::of(prop_oneof![
                    Just("shell"),
                    Just("request_user_input"),
                    Just(""),
                    Just("*")
                ]),
                prop_oneof![
                    3 => prop::collection::vec(hook, 1..3).prop_map(|hooks| hooks.concat()),
                    1 => command.prop_map(|c| vec![format!("hooks = [{{ type = \"command\", command = \"{c}\" }}]")]),
                ],
            )
                .prop_map(|(event, note, matcher, hooks)| {
                    let mut lines: Vec<String> = note.into_iter().collect();
                    lines.push("[[hooks.EVENT]]".into());
                    if let Some(matcher) = matcher {
                        lines.push(format!("matcher = \"{matcher}\""));
                    }
                    lines.extend(hooks);
                    lines
                        .into_iter()
                        .map(|line| line.replace("EVENT", event))
                        .collect()
                });
            let table = (
                "[a-z]{1,4}",
                note,
                prop::collection::vec("[a-z]{1,4}", 0..3),
            )
                .prop_map(|(name, note, keys)| {
                    let mut lines: Vec<String> = note.into_iter().collect();
                    lines.push(format!("[t_{name}]"));
                    lines.extend(keys.iter().map(|key| format!("k_{key} = 1 # theirs")));
                    lines
                });
            prop_oneof![
                4 => group,
                1 => table,
                1 => Just(vec!["[hooks]".to_string()]),
                1 => Just(vec!["[mcp_servers.other]".to_string(), "command = \"x\"".to_string()]),
            ]
        }

        /// A config.toml: top-level keys, then blocks, each line followed
        /// by a blank line or not (most often not: the layout of
        /// docs/hosts.md); ended by a newline or not.
        fn file() -> impl Strategy<Value = String> {
            (
                prop::collection::vec("[a-z]{1,4}", 0..3),
                prop::collection::vec(block(), 0..6),
                any::<u64>(),
                any::<bool>(),
            )
                .prop_map(|(keys, blocks, mut blanks, ended)| {
                    let mut lines: Vec<String> =
                        keys.iter().map(|key| format!("k_{key} = \"o3\"")).collect();
                    lines.extend(blocks.into_iter().flatten());
                    let mut text = String::new();
                    for line in lines {
                        text.push_str(&line);
                        text.push('\n');
                        if blanks % 4 == 0 {
                            text.push('\n');
                        }
                        blanks = blanks.rotate_right(2);
                    }
                    if !ended {
                        text.truncate(text.trim_end().len());
                    }
                    text
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

            /// Setup only inserts (every byte of the person's stays, in
            /// order and in one piece around ours), a second run changes
            /// nothing, and `--remove` gives back the file byte for byte
            /// (a file without a newline at its end gets that one).
            #[test]
            fn codex_hooks_insert_only_and_remove_gives_back_the_bytes(text in file()) {
                prop_assume!(toml_edit::Document::parse(text.as_str()).is_ok());
                let codex = road(Host::Codex).unwrap();
                let edited = set(&text, codex, &native()).unwrap();
                prop_assert!(configured(&edited, codex).unwrap());
                let original = if text.is_empty() || text.ends_with('\n') {
                    text.clone()
                } else {
                    format!("{text}\n")
                };
                let prefix = original
                    .bytes()
                    .zip(edited.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let suffix = original[prefix..]
                    .bytes()
                    .rev()
                    .zip(edited.bytes().rev())
                    .take_while(|(a, b)| a == b)
                    .count();
                prop_assert_eq!(
                    prefix + suffix,
                    original.len(),
                    "the person's bytes changed: {:?} became {:?}",
                    original,
                    edited
                );
                prop_assert_eq!(set(&edited, codex, &native()).unwrap(), edited.clone());
                let removed = remove(&edited, codex).unwrap();
                prop_assert_eq!(removed, original);
            }
        }
    }
}
