//! Codex's `config.toml`, through toml_edit: comments, blank lines, key
//! order and quoting style all survive; only the `[mcp_servers.ask_user]`
//! entry changes. toml_edit keeps the spans of what it parsed, so a value of
//! the wrong kind is reported at its line and column.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

use super::{Configured, Field, Malformed, Value};

/// The parsed file, checked for shape: `container` and `container.name`
/// must be tables (`[…]` or `{ … }`) when they are there.
fn parse(text: &str, container: &str, name: &str) -> Result<DocumentMut, Malformed> {
    let document = toml_edit::Document::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        Malformed::at(text, offset, e.message().trim().to_string())
    })?;
    if let Some(servers) = table_at(text, document.as_table(), container)? {
        table_at(text, servers, name)?;
    }
    Ok(document.into_mut())
}

fn table_at<'a>(
    text: &str,
    parent: &'a dyn TableLike,
    key: &str,
) -> Result<Option<&'a dyn TableLike>, Malformed> {
    match parent.get(key) {
        None => Ok(None),
        Some(item) => item.as_table_like().map(Some).ok_or_else(|| {
            Malformed::at(
                text,
                item.span().map_or(0, |span| span.start),
                format!("\"{key}\" must be a table ([{key}] or {{ … }})"),
            )
        }),
    }
}

fn entry<'a>(document: &'a DocumentMut, container: &str, name: &str) -> Option<&'a dyn TableLike> {
    document
        .get(container)
        .and_then(Item::as_table_like)
        .and_then(|servers| servers.get(name))
        .and_then(Item::as_table_like)
}

/// The configured command and args of `container.name`, if the entry is there.
pub fn read(text: &str, container: &str, name: &str) -> Result<Option<Configured>, Malformed> {
    let document = parse(text, container, name)?;
    Ok(entry(&document, container, name).map(|entry| Configured {
        command: entry
            .get("command")
            .and_then(Item::as_str)
            .map(str::to_string),
        args: entry.get("args").and_then(Item::as_array).and_then(|args| {
            args.iter()
                .map(|arg| arg.as_str().map(str::to_string))
                .collect()
        }),
    }))
}

/// `text` with `container.name` holding `fields`. A new entry is its own
/// `[container.name]` table at the end of the file; an existing one keeps
/// its form, its other keys and the comments beside its values.
pub fn set(text: &str, container: &str, name: &str, fields: &[Field]) -> Result<String, Malformed> {
    let mut document = parse(text, container, name)?;
    let inline = document.get(container).is_some_and(Item::is_inline_table);
    if document.get(container).is_none() {
        let mut servers = Table::new();
        // `[mcp_servers.ask_user]` alone, without an empty `[mcp_servers]`.
        servers.set_implicit(true);
        document.insert(container, Item::Table(servers));
    }
    let Some(servers) = document
        .get_mut(container)
        .and_then(Item::as_table_like_mut)
    else {
        unreachable!("parse checked that {container} is a table")
    };
    match servers.get_mut(name).and_then(Item::as_table_like_mut) {
        // Nothing to change: the text as it is (toml_edit does not give
        // every file back byte for byte, e.g. spaces in `[a .b .c]`).
        Some(entry) if holds_all(entry, fields) => return Ok(text.to_string()),
        Some(entry) => update(entry, fields),
        None => {
            let new = if inline {
                let mut table = InlineTable::new();
                update(&mut table, fields);
                let mut value = toml_edit::Value::from(table);
                // The space before the closing brace moves behind the new entry.
                if let Some((_, last)) = servers.iter_mut().last()
                    && let Some(last) = last.as_value_mut()
                {
                    let space = last.decor().suffix().cloned();
                    last.decor_mut().set_suffix("");
                    if let Some(space) = space {
                        value.decor_mut().set_suffix(space);
                    }
                }
                Item::Value(value)
            } else {
                let mut table = Table::new();
                update(&mut table, fields);
                if !text.trim().is_empty() {
                    // A blank line between the file's last table and ours.
                    table.decor_mut().set_prefix("\n");
                }
                Item::Table(table)
            };
            servers.insert(name, new);
        }
    }
    Ok(document.to_string())
}

/// Whether `entry` already holds every field's value.
fn holds_all(entry: &dyn TableLike, fields: &[Field]) -> bool {
    fields.iter().all(|field| {
        entry
            .get(field.key)
            .and_then(Item::as_value)
            .is_some_and(|current| same(current, &field.value))
    })
}

fn update(entry: &mut dyn TableLike, fields: &[Field]) {
    for field in fields {
        let wanted = value(&field.value);
        match entry.get_mut(field.key).and_then(Item::as_value_mut) {
            Some(current) if same(current, &field.value) => {}
            Some(current) => {
                // Keep the comment after the old value.
                let decor = current.decor().clone();
                *current = wanted;
                *current.decor_mut() = decor;
            }
            None => {
                entry.insert(field.key, Item::Value(wanted));
            }
        }
    }
}

/// `text` without `container.name`; the same text when it is not there.
pub fn remove(text: &str, container: &str, name: &str) -> Result<String, Malformed> {
    let mut document = parse(text, container, name)?;
    let removed = document
        .get_mut(container)
        .and_then(Item::as_table_like_mut)
        .and_then(|servers| {
            let removed = servers.remove(name)?;
            // In `{ …, ask_user = {…} }`, the space before the brace stays.
            if let Some(space) = removed.as_value().and_then(|v| v.decor().suffix()).cloned()
                && let Some((_, last)) = servers.iter_mut().last()
                && let Some(last) = last.as_value_mut()
            {
                last.decor_mut().set_suffix(space);
            }
            Some(removed)
        });
    Ok(match removed {
        Some(_) => document.to_string(),
        None => text.to_string(),
    })
}

fn value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Text(text) => text.as_str().into(),
        Value::List(items) => {
            toml_edit::Value::Array(items.iter().map(String::as_str).collect::<Array>())
        }
        Value::Seconds(seconds) => i64::try_from(*seconds).unwrap_or(i64::MAX).into(),
    }
}

fn same(current: &toml_edit::Value, wanted: &Value) -> bool {
    match wanted {
        Value::Text(text) => current.as_str() == Some(text.as_str()),
        Value::List(items) => current.as_array().is_some_and(|array| {
            array.len() == items.len()
                && array
                    .iter()
                    .zip(items)
                    .all(|(element, item)| element.as_str() == Some(item.as_str()))
        }),
        Value::Seconds(seconds) => {
            current.as_integer().and_then(|n| u64::try_from(n).ok()) == Some(*seconds)
                || current.as_float() == Some(*seconds as f64)
        }
    }
}

/// The merge's properties on arbitrary files (`json/fuzz.rs` has the harness).
#[cfg(test)]
mod fuzz;

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Vec<Field> {
        vec![
            Field::new("command", Value::Text("/bin/ask_user".into())),
            Field::new(
                "args",
                Value::List(vec!["mcp".into(), "--timeout".into(), "300".into()]),
            ),
            Field::new("tool_timeout_sec", Value::Seconds(1860)),
        ]
    }

    const ENTRY: &str = "[mcp_servers.ask_user]\ncommand = \"/bin/ask_user\"\nargs = [\"mcp\", \"--timeout\", \"300\"]\ntool_timeout_sec = 1860\n";

    #[test]
    fn an_empty_file_gets_one_table() {
        let text = set("", "mcp_servers", "ask_user", &fields()).unwrap();
        assert_eq!(text, ENTRY);
        assert_eq!(
            set(&text, "mcp_servers", "ask_user", &fields()).unwrap(),
            text
        );
    }

    #[test]
    fn comments_and_other_servers_stay() {
        let text =
            "# my codex\nmodel = \"o3\"  # fast\n\n[mcp_servers.other]\ncommand = \"x\" # other\n";
        let edited = set(text, "mcp_servers", "ask_user", &fields()).unwrap();
        assert_eq!(edited, format!("{text}\n{ENTRY}"));
        assert_eq!(remove(&edited, "mcp_servers", "ask_user").unwrap(), text);
        assert_eq!(remove(text, "mcp_servers", "ask_user").unwrap(), text);
    }

    #[test]
    fn an_existing_entry_keeps_its_keys_and_comments() {
        let text = "[mcp_servers.ask_user]\ncommand = \"/old\" # moved\nenv = { A = \"1\" }\nargs = [\"mcp\", \"--timeout\", \"300\"]\n";
        let edited = set(text, "mcp_servers", "ask_user", &fields()).unwrap();
        assert_eq!(
            edited,
            "[mcp_servers.ask_user]\ncommand = \"/bin/ask_user\" # moved\nenv = { A = \"1\" }\nargs = [\"mcp\", \"--timeout\", \"300\"]\ntool_timeout_sec = 1860\n"
        );
        let configured = read(&edited, "mcp_servers", "ask_user").unwrap().unwrap();
        assert_eq!(configured.command.as_deref(), Some("/bin/ask_user"));
    }

    #[test]
    fn values_already_right_are_left_as_written() {
        let text = "[mcp_servers.ask_user]\ncommand = '/bin/ask_user'\nargs = [ \"mcp\", \"--timeout\", \"300\" ]\ntool_timeout_sec = 1860.0\n";
        assert_eq!(
            set(text, "mcp_servers", "ask_user", &fields()).unwrap(),
            text
        );
        for (from, to) in [
            ("'/bin/ask_user'", "'/x'"),
            ("\"300\" ", "\"301\" "),
            ("1860.0", "1861"),
        ] {
            let wrong = text.replace(from, to);
            let fixed = set(&wrong, "mcp_servers", "ask_user", &fields()).unwrap();
            assert!(!fixed.contains(to), "{fixed}");
            // Only the wrong value is rewritten: the others stay as written
            // (a literal string, spaces in the array, a float).
            for kept in [
                "'/bin/ask_user'",
                "[ \"mcp\", \"--timeout\", \"300\" ]",
                "1860.0",
            ] {
                if kept != from && !kept.contains(from) {
                    assert!(fixed.contains(kept), "{from}: {kept} in {fixed}");
                }
            }
        }
        let longer = text.replace("\"300\" ", "\"300\", \"x\" ");
        assert!(
            !set(&longer, "mcp_servers", "ask_user", &fields())
                .unwrap()
                .contains("\"x\"")
        );
        let integer = text.replace("1860.0", "1860");
        assert_eq!(
            set(&integer, "mcp_servers", "ask_user", &fields()).unwrap(),
            integer
        );
    }

    #[test]
    fn an_inline_servers_table_gets_an_inline_entry() {
        let text = "mcp_servers = { other = { command = \"x\" } }\n";
        let edited = set(text, "mcp_servers", "ask_user", &fields()).unwrap();
        let configured = read(&edited, "mcp_servers", "ask_user").unwrap().unwrap();
        assert_eq!(configured.args.unwrap()[0], "mcp");
        assert!(
            edited.starts_with("mcp_servers = { other = { command = \"x\" }, ask_user = { command"),
            "{edited}"
        );
        assert!(edited.ends_with("1860 } }\n"), "{edited}");
        assert_eq!(remove(&edited, "mcp_servers", "ask_user").unwrap(), text);
    }

    #[test]
    fn malformed_text_and_wrong_shapes_name_line_and_column() {
        let error = set("a = 1\nb = = 2\n", "mcp_servers", "ask_user", &fields()).unwrap_err();
        assert_eq!((error.line, error.column), (2, 5), "{error:?}");
        let error = read("x = 1\nmcp_servers = 3\n", "mcp_servers", "ask_user").unwrap_err();
        assert_eq!((error.line, error.column), (2, 15), "{error:?}");
        assert!(error.message.contains("\"mcp_servers\" must be a table"));
        let error = remove(
            "[mcp_servers]\nask_user = \"x\"\n",
            "mcp_servers",
            "ask_user",
        )
        .unwrap_err();
        assert_eq!((error.line, error.column), (2, 12), "{error:?}");
    }

    #[test]
    fn an_entry_already_right_leaves_the_file_byte_for_byte() {
        // toml_edit writes this file back as `.ask_user.env` (the key's
        // spacing is kept once, from its first header): a run with nothing
        // to change must not write it at all (found by toml/fuzz.rs).
        let text = format!("{ENTRY}[ mcp_servers .ask_user .env ]\nA = \"1\"\n")
            .replace("[mcp_servers.ask_user]", "[mcp_servers .ask_user]");
        assert_eq!(
            set(&text, "mcp_servers", "ask_user", &fields()).unwrap(),
            text
        );
        let implicit = "[ mcp_servers .ask_user .env ]\nA = \"1\"\n";
        let once = set(implicit, "mcp_servers", "ask_user", &fields()).unwrap();
        assert_eq!(
            set(&once, "mcp_servers", "ask_user", &fields()).unwrap(),
            once
        );
    }

    mod layouts {
        use super::*;
        use proptest::prelude::*;

        /// A Codex config.toml: top-level keys, other tables, other servers
        /// (as tables or one inline table), comments; a blank line before
        /// each table or none (as docs/hosts.md writes them). (LF only:
        /// toml_edit writes new lines as LF, so a CRLF file comes back mixed.)
        fn file() -> impl Strategy<Value = (String, bool)> {
            let comment = prop::option::of(Just("# a note".to_string()));
            let pair = (
                "[a-z]{1,6}",
                prop_oneof![
                    Just("1"),
                    Just("\"x # not a comment\""),
                    Just("[1, 2]"),
                    Just("{ a = 1 }")
                ],
                comment,
            );
            (
                prop::collection::vec(pair.clone(), 0..3),
                prop::collection::vec(("[a-z]{1,6}", prop::collection::vec(pair, 0..3)), 0..3),
                prop::option::of((prop::collection::vec("[a-z]{1,6}", 0..3), any::<bool>())),
                Just("\n"),
                any::<bool>(),
            )
                .prop_map(|(keys, tables, servers, newline, blank)| {
                    let blank = if blank {
                        vec![String::new()]
                    } else {
                        Vec::new()
                    };
                    // An emptied `{ }` may come back as `{}`; with another server
                    // left, or no servers table before, the file comes back whole.
                    let exact = servers.as_ref().is_none_or(|(names, _)| !names.is_empty());
                    let mut lines = vec!["# my codex".to_string()];
                    let pairs =
                        |lines: &mut Vec<String>, list: &[(String, &str, Option<String>)]| {
                            for (key, value, note) in list {
                                lines.push(format!(
                                    "k_{key} = {value}{}",
                                    note.as_deref().map_or(String::new(), |n| format!(" {n}"))
                                ));
                            }
                        };
                    pairs(&mut lines, &keys);
                    if let Some((names, inline)) = &servers {
                        let mut names = names.clone();
                        names.sort();
                        names.dedup();
                        if *inline {
                            let items: Vec<String> = names
                                .iter()
                                .map(|n| format!("s_{n} = {{ command = \"x\" }}"))
                                .collect();
                            lines.push(format!("mcp_servers = {{ {} }}", items.join(", ")));
                        } else {
                            for name in names {
                                lines.extend(blank.clone());
                                lines.push(format!("[mcp_servers.s_{name}]"));
                                lines.push("command = \"x\" # theirs".to_string());
                            }
                        }
                    }
                    let mut seen = Vec::new();
                    for (name, list) in &tables {
                        if seen.contains(name) {
                            continue;
                        }
                        seen.push(name.clone());
                        lines.extend(blank.clone());
                        lines.push(format!("[t_{name}]"));
                        pairs(&mut lines, list);
                    }
                    (lines.join(newline) + newline, exact)
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

            #[test]
            fn set_keeps_every_line_is_idempotent_and_remove_undoes_it((text, exact) in file()) {
                prop_assume!(toml_edit::Document::parse(text.as_str()).is_ok());
                let set_once = set(&text, "mcp_servers", "ask_user", &fields()).unwrap();
                let configured = read(&set_once, "mcp_servers", "ask_user").unwrap().unwrap();
                prop_assert_eq!(configured.command.as_deref(), Some("/bin/ask_user"));
                let mut rest = set_once.as_str();
                for line in text.lines().filter(|line| !line.starts_with("mcp_servers = {")) {
                    let at = rest.find(line);
                    prop_assert!(at.is_some(), "{:?} lost in {:?}", line, set_once);
                    rest = &rest[at.unwrap_or(0) + line.len()..];
                }
                if exact {
                    // Only an insertion: the person's bytes in one piece around it.
                    let prefix = text.bytes().zip(set_once.bytes()).take_while(|(a, b)| a == b).count();
                    let suffix = text[prefix..]
                        .bytes()
                        .rev()
                        .zip(set_once.bytes().rev())
                        .take_while(|(a, b)| a == b)
                        .count();
                    prop_assert_eq!(prefix + suffix, text.len(), "{:?} became {:?}", text, set_once);
                }
                prop_assert_eq!(set(&set_once, "mcp_servers", "ask_user", &fields()).unwrap(), set_once.clone());
                let removed = remove(&set_once, "mcp_servers", "ask_user").unwrap();
                prop_assert_eq!(read(&removed, "mcp_servers", "ask_user").unwrap(), None);
                if exact {
                    prop_assert_eq!(removed, text);
                }
            }
        }
    }
}
