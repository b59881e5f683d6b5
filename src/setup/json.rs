//! JSON and JSONC config files (every host but Codex): the ask_user entry is
//! read through jsonc-parser's AST (which knows where each value stands, for
//! errors) and edited through its CST (which keeps every comment, blank line
//! and indent of the file), so that nothing but the entry changes.

use jsonc_parser::ast::{Object, ObjectProp, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};

use super::{Configured, Field, Malformed, Value};

/// What the hosts read: JSON with comments and trailing commas (VS Code's
/// JSONC; Gemini strips comments too). JSON5 extras are refused, because a
/// host that reads strict JSON would refuse them.
pub(super) fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The entry `container.name` as it stands in `text`, checked for shape:
/// the top level, the container and the entry must each be an object.
struct Found<'a> {
    entry: Option<Object<'a>>,
}

fn find<'a>(text: &'a str, container: &str, name: &str) -> Result<Found<'a>, Malformed> {
    let parsed = parse_to_ast(text, &CollectOptions::default(), &options())
        .map_err(|e| Malformed::at(text, e.range().start, format!("{}", e.kind())))?;
    let root = match parsed.value {
        None => return Ok(Found { entry: None }),
        Some(Ast::Object(root)) => root,
        Some(other) => {
            return Err(Malformed::at(
                text,
                other.start(),
                "the top level must be an object ({…})".to_string(),
            ));
        }
    };
    let Some(servers) = object_at(text, &root, container)? else {
        return Ok(Found { entry: None });
    };
    let entry = object_at(text, &servers, name)?;
    Ok(Found { entry })
}

/// The object under `key` in `object`, if the key is there; an error when
/// its value is anything but an object.
fn object_at<'a>(
    text: &str,
    object: &Object<'a>,
    key: &str,
) -> Result<Option<Object<'a>>, Malformed> {
    match only(text, object, key)?.map(|prop| &prop.value) {
        None => Ok(None),
        Some(Ast::Object(found)) => Ok(Some(found.clone())),
        Some(other) => Err(Malformed::at(
            text,
            other.start(),
            format!("\"{key}\" must be an object ({{…}})"),
        )),
    }
}

/// The property `key` of `object`, if it is there. A key written twice on
/// the way to the entry is refused: hosts read the last one (`JSON.parse`),
/// and an edit of the first would never reach them.
pub(super) fn only<'o, 'a>(
    text: &str,
    object: &'o Object<'a>,
    key: &str,
) -> Result<Option<&'o ObjectProp<'a>>, Malformed> {
    let mut props = object
        .properties
        .iter()
        .filter(|prop| prop.name.as_str() == key);
    let first = props.next();
    match props.next() {
        Some(again) => Err(Malformed::at(
            text,
            again.start(),
            format!("\"{key}\" is written twice (the host reads only the last one): keep one"),
        )),
        None => Ok(first),
    }
}

/// The configured command and args of `container.name`, if the entry is there.
pub fn read(text: &str, container: &str, name: &str) -> Result<Option<Configured>, Malformed> {
    let found = find(text, container, name)?;
    Ok(found.entry.map(|entry| Configured {
        command: entry
            .get_string("command")
            .map(|command| command.value.to_string()),
        args: entry.get_array("args").and_then(|args| {
            args.elements
                .iter()
                .map(|arg| arg.as_string_lit().map(|s| s.value.to_string()))
                .collect()
        }),
    }))
}

/// `text` with `container.name` holding `fields`: the entry's other keys,
/// and everything else in the file, stay as they were. A field that already
/// holds its value is not touched, so a second run changes nothing.
pub fn set(text: &str, container: &str, name: &str, fields: &[Field]) -> Result<String, Malformed> {
    let found = find(text, container, name)?;
    if let Some(entry) = &found.entry {
        for field in fields {
            only(text, entry, field.key)?;
        }
    }
    let root = parse_cst(text)?;
    let servers = root.object_value_or_set().object_value_or_set(container);
    match (
        found.entry,
        servers.get(name).and_then(|prop| prop.object_value()),
    ) {
        (Some(current), Some(entry)) => update(&current, &entry, fields),
        _ => {
            let value = CstInputValue::Object(
                fields
                    .iter()
                    .map(|field| (field.key.to_string(), input(&field.value)))
                    .collect(),
            );
            servers.append(name, value);
        }
    }
    let mut edited = root.to_string();
    if text.trim().is_empty() && !edited.ends_with('\n') {
        edited.push('\n');
    }
    Ok(edited)
}

fn update(current: &Object<'_>, entry: &CstObject, fields: &[Field]) {
    for field in fields {
        let holds = current
            .get(field.key)
            .is_some_and(|prop| same(&prop.value, &field.value));
        if holds {
            continue;
        }
        match entry.get(field.key) {
            Some(prop) => prop.set_value(input(&field.value)),
            None => {
                entry.append(field.key, input(&field.value));
            }
        }
    }
}

/// `text` without `container.name`; the same text when it is not there.
pub fn remove(text: &str, container: &str, name: &str) -> Result<String, Malformed> {
    if find(text, container, name)?.entry.is_none() {
        return Ok(text.to_string());
    }
    let root = parse_cst(text)?;
    let Some(servers) = root
        .object_value()
        .and_then(|root| root.object_value(container))
    else {
        return Ok(text.to_string());
    };
    if let Some(prop) = servers.get(name) {
        prop.remove();
    }
    // Setup makes the servers object where there was none, as the last key
    // of the file: an object that the entry was all of, standing there,
    // goes with it (an empty one means the same to every host). One
    // elsewhere is the person's (VS Code's `{"servers": {}, "inputs": []}`)
    // and stays, as does one with a comment in it.
    let emptied = servers.properties().is_empty()
        && !servers.children().iter().any(|child| child.is_comment());
    let last = root
        .object_value()
        .and_then(|root| root.properties().pop())
        .filter(|prop| {
            prop.name()
                .and_then(|name| name.decoded_value().ok())
                .as_deref()
                == Some(container)
        });
    if emptied && let Some(prop) = last {
        prop.remove();
    }
    Ok(root.to_string())
}

pub(super) fn parse_cst(text: &str) -> Result<CstRootNode, Malformed> {
    CstRootNode::parse(text, &options())
        .map_err(|e| Malformed::at(text, e.range().start, format!("{}", e.kind())))
}

fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Text(text) => CstInputValue::String(text.clone()),
        Value::List(items) => {
            CstInputValue::Array(items.iter().cloned().map(CstInputValue::String).collect())
        }
        Value::Seconds(seconds) => CstInputValue::Number(seconds.to_string()),
    }
}

/// Whether `ast` already holds `value` (a number compared by its value).
fn same(ast: &Ast<'_>, value: &Value) -> bool {
    match (ast, value) {
        (Ast::StringLit(text), Value::Text(wanted)) => text.value == wanted.as_str(),
        (Ast::Array(array), Value::List(wanted)) => {
            array.elements.len() == wanted.len()
                && array.elements.iter().zip(wanted).all(|(element, wanted)| {
                    element
                        .as_string_lit()
                        .is_some_and(|text| text.value == wanted.as_str())
                })
        }
        (Ast::NumberLit(number), Value::Seconds(wanted)) => {
            number.value.parse::<f64>().ok() == Some(*wanted as f64)
        }
        _ => false,
    }
}

/// The merge's properties on arbitrary files (shared with TOML's).
#[cfg(test)]
pub(super) mod fuzz;

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Vec<Field> {
        vec![
            Field::new("command", Value::Text("/bin/ask_user".into())),
            Field::new("args", Value::List(vec!["mcp".into()])),
        ]
    }

    #[test]
    fn an_empty_file_gets_the_container_and_the_entry() {
        let text = set("", "mcpServers", "ask_user", &fields()).unwrap();
        assert_eq!(
            text,
            "{\n  \"mcpServers\": {\n    \"ask_user\": {\n      \"command\": \"/bin/ask_user\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
        );
        let again = set(&text, "mcpServers", "ask_user", &fields()).unwrap();
        assert_eq!(again, text);
    }

    #[test]
    fn comments_other_servers_and_layout_stay() {
        let text = "// mine\n{\n    \"theme\": \"dark\", // keep\n    \"mcpServers\": {\n        /* other */\n        \"other\": {\"command\": \"x\"},\n    },\n}";
        let edited = set(text, "mcpServers", "ask_user", &fields()).unwrap();
        assert!(
            edited.starts_with("// mine\n{\n    \"theme\": \"dark\", // keep\n"),
            "{edited}"
        );
        assert!(
            edited.contains("/* other */\n        \"other\": {\"command\": \"x\"},"),
            "{edited}"
        );
        assert!(
            edited.contains("        \"ask_user\": {\n            \"command\": \"/bin/ask_user\""),
            "{edited}"
        );
        let removed = remove(&edited, "mcpServers", "ask_user").unwrap();
        assert_eq!(removed, text);
    }

    /// A file without servers: setup makes the object, `--remove` takes it
    /// out with the entry, and the file is back byte for byte. An object
    /// with another server, or a comment of the person's, stays.
    #[test]
    fn servers_that_held_only_the_entry_go_with_it() {
        let text = "// mine\n{\n  \"theme\": \"dark\", // keep\n  \"hooks\": {\n    \"a\": [1, 2]\n  }\n}\n";
        let edited = set(text, "mcpServers", "ask_user", &fields()).unwrap();
        assert!(edited.contains("\"mcpServers\": {"), "{edited}");
        assert_eq!(remove(&edited, "mcpServers", "ask_user").unwrap(), text);
        let empty = "{}\n";
        let edited = set(empty, "servers", "ask_user", &fields()).unwrap();
        assert_eq!(remove(&edited, "servers", "ask_user").unwrap(), empty);
        for kept in [
            "{\n  \"mcpServers\": {\n    \"other\": {}\n  }\n}\n",
            "{\n  \"mcpServers\": {\n    // mine\n  }\n}\n",
            "{\n  \"mcpServers\": {},\n  \"inputs\": []\n}\n",
        ] {
            let edited = set(kept, "mcpServers", "ask_user", &fields()).unwrap();
            assert_eq!(remove(&edited, "mcpServers", "ask_user").unwrap(), kept);
        }
    }

    #[test]
    fn an_entry_keeps_its_other_keys_and_only_wrong_values_change() {
        let text = "{\"mcpServers\": {\"ask_user\": {\"command\": \"/old\", \"env\": {\"A\": \"1\"}, \"args\": [\"mcp\"]}}}\n";
        let edited = set(text, "mcpServers", "ask_user", &fields()).unwrap();
        assert_eq!(
            edited,
            "{\"mcpServers\": {\"ask_user\": {\"command\": \"/bin/ask_user\", \"env\": {\"A\": \"1\"}, \"args\": [\"mcp\"]}}}\n"
        );
    }

    #[test]
    fn values_already_right_are_left_as_written() {
        // As `claude mcp add` writes it: args over several lines; a number as a float.
        let text = "{\n  \"mcpServers\": {\n    \"ask_user\": {\n      \"command\": \"/bin/ask_user\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"t\": 1860.0\n    }\n  }\n}\n";
        let mut wanted = fields();
        wanted.push(Field::new("t", Value::Seconds(1860)));
        assert_eq!(set(text, "mcpServers", "ask_user", &wanted).unwrap(), text);
        // Strings are compared by value: an escape is the same text, kept as written.
        let escaped = text.replace("\"/bin/ask_user\"", "\"\\u002fbin\\/ask_user\"");
        assert_eq!(
            set(&escaped, "mcpServers", "ask_user", &wanted).unwrap(),
            escaped
        );
        // A wrong value of each kind is rewritten.
        for (from, to) in [
            ("\"/bin/ask_user\"", "\"/x\""),
            ("\"mcp\"", "\"mcq\""),
            ("1860.0", "1861"),
        ] {
            let wrong = text.replace(from, to);
            let fixed = set(&wrong, "mcpServers", "ask_user", &wanted).unwrap();
            assert_ne!(fixed, wrong, "{from}");
            assert!(!fixed.contains(to), "{fixed}");
        }
        let longer = text.replace("\"mcp\"\n", "\"mcp\", \"x\"\n");
        assert!(
            !set(&longer, "mcpServers", "ask_user", &wanted)
                .unwrap()
                .contains("\"x\"")
        );
        let not_text = text.replace("[\n        \"mcp\"\n      ]", "[1]");
        assert!(
            set(&not_text, "mcpServers", "ask_user", &wanted)
                .unwrap()
                .contains("[\"mcp\"]")
        );
    }

    #[test]
    fn read_reports_command_and_args() {
        let text = "{\"servers\": {\"ask_user\": {\"type\": \"stdio\", \"command\": \"/a\", \"args\": [\"mcp\", \"x\"]}}}";
        let configured = read(text, "servers", "ask_user").unwrap().unwrap();
        assert_eq!(configured.command.as_deref(), Some("/a"));
        assert_eq!(
            configured.args,
            Some(vec!["mcp".to_string(), "x".to_string()])
        );
        assert_eq!(read(text, "mcpServers", "ask_user").unwrap(), None);
        assert_eq!(read("", "servers", "ask_user").unwrap(), None);
    }

    #[test]
    fn malformed_text_and_wrong_shapes_name_line_and_column() {
        let error = set(
            "{\n  \"a\": 1\n  \"b\": 2\n}",
            "mcpServers",
            "ask_user",
            &fields(),
        )
        .unwrap_err();
        // Where the missing comma belongs.
        assert_eq!((error.line, error.column), (2, 9), "{error:?}");
        assert_eq!(error.message, "Expected comma");
        let error = set("[]", "mcpServers", "ask_user", &fields()).unwrap_err();
        assert_eq!((error.line, error.column), (1, 1));
        assert!(error.message.contains("top level"), "{error:?}");
        let error = read("{\n \"mcpServers\": [1]}", "mcpServers", "ask_user").unwrap_err();
        assert_eq!((error.line, error.column), (2, 16));
        assert!(error.message.contains("\"mcpServers\" must be an object"));
        let error = remove(
            "{\"mcpServers\": {\"ask_user\": 3}}",
            "mcpServers",
            "ask_user",
        )
        .unwrap_err();
        assert!(error.message.contains("\"ask_user\" must be an object"));
        let error = set("{'a': 1}", "mcpServers", "ask_user", &fields()).unwrap_err();
        assert_eq!((error.line, error.column), (1, 2), "{error:?}");
    }

    #[test]
    fn a_key_written_twice_on_the_way_to_the_entry_is_refused() {
        // Hosts read the last one (JSON.parse); an edit of the first would
        // never reach them (found by json/fuzz.rs).
        let twice = |text: &str| set(text, "servers", "ask_user", &fields()).unwrap_err();
        let error = twice("{\"\\u0073ervers\": {},\n \"servers\": {}}");
        assert_eq!((error.line, error.column), (2, 2), "{error:?}");
        assert_eq!(
            error.message,
            "\"servers\" is written twice (the host reads only the last one): keep one"
        );
        let error = twice("{\"servers\": {\"ask_user\": {}, \"ask_user\": {}}}");
        assert_eq!((error.line, error.column), (1, 30), "{error:?}");
        assert!(error.message.starts_with("\"ask_user\" is written twice"));
        let command = "{\"servers\": {\"ask_user\": {\"command\": \"/a\", \"command\": \"/b\"}}}";
        let error = twice(command);
        assert_eq!((error.line, error.column), (1, 44), "{error:?}");
        assert!(error.message.starts_with("\"command\" is written twice"));
        // --remove takes the whole entry, whatever it holds (and the
        // servers with it: it was all they held).
        assert_eq!(remove(command, "servers", "ask_user").unwrap(), "{}");
        assert!(remove("{\"servers\": 1, \"servers\": {}}", "servers", "ask_user").is_err());
        // Twice elsewhere is the file's own business.
        let elsewhere = "{\"a\": 1, \"a\": 2, \"servers\": {\"x\": {}, \"x\": {}}}";
        assert!(set(elsewhere, "servers", "ask_user", &fields()).is_ok());
    }

    mod layouts {
        use super::*;
        use proptest::prelude::*;

        /// A JSONC settings file in one of many layouts: indent, newlines,
        /// comments before and after keys, trailing commas, other keys and
        /// other servers, with or without the servers object.
        fn file() -> impl Strategy<Value = (String, usize)> {
            let key = "[a-z]{1,6}";
            let value = prop_oneof![
                Just("1".to_string()),
                Just("\"text // not a comment\"".to_string()),
                Just("true".to_string()),
                Just("{ \"nested\": [1, 2] }".to_string()),
                Just("[]".to_string()),
            ];
            let member = (key, value, any::<bool>(), any::<bool>());
            (
                prop_oneof![Just("  "), Just("    "), Just("\t")],
                prop_oneof![Just("\n"), Just("\r\n")],
                prop::collection::vec(member.clone(), 0..4),
                prop::option::of(prop::collection::vec(member, 0..3)),
                any::<bool>(),
            )
                .prop_map(|(indent, newline, keys, servers, trailing)| {
                    let members = |list: &[(String, String, bool, bool)],
                                   depth: usize,
                                   prefix: &str| {
                        let pad = indent.repeat(depth);
                        let mut lines = Vec::new();
                        for (index, (name, value, before, after)) in list.iter().enumerate() {
                            if *before {
                                lines.push(format!("{pad}// about {name}"));
                            }
                            let comma = if index + 1 < list.len() || trailing {
                                ","
                            } else {
                                ""
                            };
                            let note = if *after { " /* kept */" } else { "" };
                            lines.push(format!("{pad}\"{prefix}{name}\": {value}{comma}{note}"));
                        }
                        lines
                    };
                    let mut lines = vec!["// my settings".to_string(), "{".to_string()];
                    let other_servers = servers.as_ref().map_or(0, Vec::len);
                    let mut top = members(&keys, 1, "k_");
                    if let Some(servers) = servers {
                        // The servers object follows: the last key needs a comma
                        // (a member line is always last; comments go before).
                        if let Some(last) = top.last_mut()
                            && !trailing
                        {
                            match last.find(" /* kept */") {
                                Some(at) => last.insert(at, ','),
                                None => last.push(','),
                            }
                        }
                        lines.append(&mut top);
                        lines.push(format!("{indent}\"mcpServers\": {{"));
                        lines.extend(members(&servers, 2, "s_"));
                        lines.push(format!("{indent}}}{}", if trailing { "," } else { "" }));
                    } else {
                        lines.append(&mut top);
                    }
                    lines.push("}".to_string());
                    (lines.join(newline) + newline, other_servers)
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

            #[test]
            fn set_keeps_every_line_is_idempotent_and_remove_undoes_it((text, other_servers) in file()) {
                prop_assume!(find(&text, "mcpServers", "ask_user").is_ok());
                let set_once = set(&text, "mcpServers", "ask_user", &fields()).unwrap();
                let configured = read(&set_once, "mcpServers", "ask_user").unwrap().unwrap();
                prop_assert_eq!(configured.command.as_deref(), Some("/bin/ask_user"));
                // Every line is still there, in order (a member may gain a comma).
                let without_commas = set_once.replace(',', "");
                let mut rest = without_commas.as_str();
                for line in text.replace(',', "").lines() {
                    let at = rest.find(line);
                    prop_assert!(at.is_some(), "{:?} lost in {:?}", line, set_once);
                    rest = &rest[at.unwrap_or(0) + line.len()..];
                }
                prop_assert_eq!(set(&set_once, "mcpServers", "ask_user", &fields()).unwrap(), set_once.clone());
                let removed = remove(&set_once, "mcpServers", "ask_user").unwrap();
                prop_assert_eq!(read(&removed, "mcpServers", "ask_user").unwrap(), None);
                // Byte for byte beside another server; an emptied object may
                // be written `{}` where it spanned lines.
                if other_servers > 0 {
                    prop_assert_eq!(removed, text);
                }
            }
        }
    }
}
