//! The hooks of the JSON hosts (Claude Code, Gemini CLI) in their settings
//! file, JSON with comments, through jsonc-parser's syntax tree (comments,
//! blank lines and key order stay).

use jsonc_parser::ast::{Object, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject};
use jsonc_parser::{CollectOptions, parse_to_ast};
use serde_json::Value as Json;

use super::{Road, hook_command, hook_timeout, ours};
use crate::setup::Malformed;
use crate::setup::json::{only, options, parse_cst};
use crate::setup::launch::Launch;

/// The hook object setup writes.
fn hook_input(road: &Road, launch: &Launch) -> CstInputValue {
    let mut fields = Vec::with_capacity(4);
    if road.named {
        fields.push(("name".to_string(), CstInputValue::String("ask_user".into())));
    }
    fields.push(("type".to_string(), CstInputValue::String("command".into())));
    fields.push((
        "command".to_string(),
        CstInputValue::String(hook_command(road, launch)),
    ));
    fields.push((
        "timeout".to_string(),
        CstInputValue::Number(hook_timeout(road).to_string()),
    ));
    CstInputValue::Object(fields)
}

/// Checks the way to the hooks: the top level and `hooks` are objects, each
/// event of ours an array, none of them written twice. What the arrays hold
/// is the host's business: setup looks only at the groups and hooks it
/// recognises.
fn check(text: &str, road: &Road) -> Result<bool, Malformed> {
    let parsed = parse_to_ast(text, &CollectOptions::default(), &options())
        .map_err(|e| Malformed::at(text, e.range().start, format!("{}", e.kind())))?;
    let root: Object = match parsed.value {
        None => return Ok(false),
        Some(Ast::Object(root)) => root,
        Some(other) => {
            return Err(Malformed::at(
                text,
                other.start(),
                "the top level must be an object ({…})".to_string(),
            ));
        }
    };
    let hooks = match only(text, &root, "hooks")?.map(|prop| &prop.value) {
        None => return Ok(false),
        Some(Ast::Object(hooks)) => hooks.clone(),
        Some(other) => {
            return Err(Malformed::at(
                text,
                other.start(),
                "\"hooks\" must be an object ({…})".to_string(),
            ));
        }
    };
    for event in road.events {
        match only(text, &hooks, event.name)?.map(|prop| &prop.value) {
            None | Some(Ast::Array(_)) => {}
            Some(other) => {
                return Err(Malformed::at(
                    text,
                    other.start(),
                    format!("\"{}\" must be an array ([…])", event.name),
                ));
            }
        }
    }
    Ok(true)
}

/// One hook of ours in an event's array: its group and the hook itself.
struct Found {
    group: CstObject,
    /// The group's matcher (`None`: none, or empty).
    matcher: Option<String>,
    hook: CstObject,
}

/// Every hook of ours in `groups`, in order.
fn find(road: &Road, groups: &CstArray) -> Vec<Found> {
    let mut found = Vec::new();
    for group in groups.elements().iter().filter_map(CstNode::as_object) {
        let matcher = group
            .get("matcher")
            .and_then(|prop| prop.value())
            .and_then(|value| scalar(&value))
            .and_then(|value| value.as_str().map(str::to_string))
            .filter(|matcher| !matcher.is_empty());
        let Some(hooks) = group.array_value("hooks") else {
            continue;
        };
        for hook in hooks.elements().iter().filter_map(CstNode::as_object) {
            let command = string_at(&hook, "command");
            if command.is_some_and(|command| ours(road, &command)) {
                found.push(Found {
                    group: group.clone(),
                    matcher: matcher.clone(),
                    hook,
                });
            }
        }
    }
    found
}

fn string_at(object: &CstObject, key: &str) -> Option<String> {
    scalar(&object.get(key)?.value()?)?
        .as_str()
        .map(str::to_string)
}

/// A string or number node as JSON (all that setup compares); `None` for
/// anything else.
fn scalar(node: &CstNode) -> Option<Json> {
    if let Some(text) = node.as_string_lit() {
        return text.decoded_value().ok().map(Json::from);
    }
    let number: f64 = node.as_number_lit()?.to_string().parse().ok()?;
    serde_json::Number::from_f64(number).map(Json::Number)
}

/// Takes `hook` out of its group, and the group out of `groups` when that
/// left it without hooks.
fn take_out(found: Found) {
    let Found { group, hook, .. } = found;
    hook.remove();
    let emptied = group
        .array_value("hooks")
        .is_some_and(|hooks| hooks.elements().is_empty());
    if emptied {
        group.remove();
    }
}

/// `text` with `road`'s hooks (see [`super::set`]).
pub(super) fn set(text: &str, road: &Road, launch: &Launch) -> Result<String, Malformed> {
    check(text, road)?;
    let root = parse_cst(text)?;
    let hooks = root.object_value_or_set().object_value_or_set("hooks");
    let wanted_command = hook_command(road, launch);
    let wanted_timeout = Json::from(hook_timeout(road));
    for event in road.events {
        let groups = hooks.array_value_or_set(event.name);
        let mut keeper = None;
        for found in find(road, &groups) {
            if keeper.is_none() && found.matcher.as_deref() == event.matcher {
                keeper = Some(found.hook);
            } else {
                take_out(found);
            }
        }
        match keeper {
            Some(hook) => {
                correct(&hook, "type", Json::from("command"));
                correct(&hook, "command", Json::from(wanted_command.as_str()));
                correct(&hook, "timeout", wanted_timeout.clone());
                if road.named {
                    correct(&hook, "name", Json::from("ask_user"));
                }
            }
            None => {
                let mut group = Vec::with_capacity(2);
                if let Some(matcher) = event.matcher {
                    group.push(("matcher".to_string(), CstInputValue::String(matcher.into())));
                }
                group.push((
                    "hooks".to_string(),
                    CstInputValue::Array(vec![hook_input(road, launch)]),
                ));
                groups.append(CstInputValue::Object(group));
            }
        }
    }
    let mut edited = root.to_string();
    if text.trim().is_empty() && !edited.ends_with('\n') {
        edited.push('\n');
    }
    Ok(edited)
}

/// Sets `key` of `hook` to `wanted` unless it holds it already (a number
/// compared by value, so `1830.0` stays as written).
fn correct(hook: &CstObject, key: &str, wanted: Json) {
    let current = hook
        .get(key)
        .and_then(|prop| prop.value())
        .and_then(|value| scalar(&value));
    let holds = match (&current, &wanted) {
        (Some(Json::Number(a)), Json::Number(b)) => a.as_f64() == b.as_f64(),
        (Some(current), wanted) => current == wanted,
        (None, _) => false,
    };
    if holds {
        return;
    }
    let input = match wanted {
        Json::Number(number) => CstInputValue::Number(number.to_string()),
        Json::String(text) => CstInputValue::String(text),
        _ => return,
    };
    match hook.get(key) {
        Some(prop) => prop.set_value(input),
        None => {
            hook.append(key, input);
        }
    }
}

/// `text` without `road`'s hooks (see [`super::remove`]).
pub(super) fn remove(text: &str, road: &Road) -> Result<String, Malformed> {
    if !check(text, road)? {
        return Ok(text.to_string());
    }
    let root = parse_cst(text)?;
    let Some(hooks) = root
        .object_value()
        .and_then(|root| root.object_value("hooks"))
    else {
        return Ok(text.to_string());
    };
    let mut removed = false;
    for event in road.events {
        let Some(groups) = hooks.array_value(event.name) else {
            continue;
        };
        let found = find(road, &groups);
        if found.is_empty() {
            continue;
        }
        removed = true;
        found.into_iter().for_each(take_out);
        if groups.elements().is_empty()
            && let Some(prop) = hooks.get(event.name)
        {
            prop.remove();
        }
    }
    if !removed {
        return Ok(text.to_string());
    }
    if hooks.properties().is_empty()
        && let Some(prop) = root.object_value().and_then(|root| root.get("hooks"))
    {
        prop.remove();
    }
    Ok(root.to_string())
}

/// Whether `text` holds every hook of `road` (see [`super::configured`]).
pub(super) fn configured(text: &str, road: &Road) -> Result<bool, Malformed> {
    if !check(text, road)? {
        return Ok(false);
    }
    let root = parse_cst(text)?;
    let Some(hooks) = root
        .object_value()
        .and_then(|root| root.object_value("hooks"))
    else {
        return Ok(false);
    };
    Ok(road.events.iter().all(|event| {
        hooks
            .array_value(event.name)
            .is_some_and(|groups| !find(road, &groups).is_empty())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Host;
    use crate::setup::hooks::road;

    fn native() -> Launch {
        Launch {
            command: "/opt/ask user/ask_user".into(),
            args: vec![],
        }
    }

    fn claude() -> &'static Road {
        road(Host::ClaudeCode).unwrap()
    }

    /// A settings file as a person keeps it: permissions, env, other hooks
    /// on the same events (another PreToolUse matcher, another command
    /// under AskUserQuestion), another event, comments.
    const SETTINGS: &str = r#"{
  // mine
  "permissions": {"allow": ["Bash(ls:*)"]},
  "env": {"FOO": "1"},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check-bash"}]},
      {"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "notify-send asked"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}] /* keep */
  }
}
"#;

    #[test]
    fn set_adds_ours_beside_everything_else_and_is_idempotent() {
        let set_once = set(SETTINGS, claude(), &native()).unwrap();
        let value: Json = serde_json::from_str(&strip(&set_once)).unwrap();
        let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 3, "{set_once}");
        assert_eq!(pre[1]["hooks"][0]["command"], "notify-send asked");
        assert_eq!(pre[2]["matcher"], "AskUserQuestion");
        assert_eq!(
            pre[2]["hooks"][0],
            serde_json::json!({"type": "command",
                "command": "'/opt/ask user/ask_user' hook claude-code --timeout 1800",
                "timeout": 1830})
        );
        let elicitation = &value["hooks"]["Elicitation"][0];
        assert_eq!(elicitation.get("matcher"), None);
        assert_eq!(elicitation["hooks"][0]["timeout"], 1830);
        assert_eq!(value["env"]["FOO"], "1");
        assert!(set_once.contains("// mine") && set_once.contains("/* keep */"));
        assert!(configured(&set_once, claude()).unwrap());
        assert!(!configured(SETTINGS, claude()).unwrap());
        assert_eq!(set(&set_once, claude(), &native()).unwrap(), set_once);
        assert_eq!(remove(&set_once, claude()).unwrap(), SETTINGS);
    }

    #[test]
    fn an_empty_or_missing_file_gets_the_hooks_and_removal_empties_it_again() {
        let text = set("", claude(), &native()).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        assert!(configured(&text, claude()).unwrap());
        assert_eq!(remove(&text, claude()).unwrap(), "{}\n");
        assert_eq!(remove("", claude()).unwrap(), "");
        assert_eq!(remove(SETTINGS, claude()).unwrap(), SETTINGS);
    }

    #[test]
    fn a_stale_hook_is_corrected_in_place_and_duplicates_go() {
        let stale = r#"{"hooks": {"PreToolUse": [
  {"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "/old/ask_user hook claude-code --timeout 60", "timeout": 90}, {"type": "command", "command": "other"}]},
  {"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "/old/ask_user hook claude-code"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/ask_user hook claude-code"}]}
]}}"#;
        let fixed = set(stale, claude(), &native()).unwrap();
        let value: Json = serde_json::from_str(&fixed).unwrap();
        let pre = value["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 1, "{fixed}");
        assert_eq!(pre[0]["hooks"][0]["timeout"], 1830);
        assert_eq!(
            pre[0]["hooks"][0]["command"],
            "'/opt/ask user/ask_user' hook claude-code --timeout 1800"
        );
        assert_eq!(pre[0]["hooks"][1]["command"], "other");
        // A timeout already right, written as a float, is left as written.
        let float = fixed.replace("1830", "1830.0");
        assert_eq!(set(&float, claude(), &native()).unwrap(), float);
    }

    #[test]
    fn gemini_hooks_are_named_anchored_and_in_milliseconds() {
        let gemini = road(Host::Gemini).unwrap();
        let text = "// gemini\n{\"mcpServers\": {}, \"hooks\": {\"BeforeTool\": []}}\n";
        let edited = set(text, gemini, &native()).unwrap();
        let value: Json = serde_json::from_str(&strip(&edited)).unwrap();
        let group = &value["hooks"]["BeforeTool"][0];
        assert_eq!(group["matcher"], "^ask_user$");
        assert_eq!(group["hooks"][0]["name"], "ask_user");
        assert_eq!(group["hooks"][0]["timeout"], 1_830_000);
        assert!(
            group["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .ends_with(" hook gemini --timeout 1800")
        );
        // We emptied an array that was there: it goes with our group.
        assert_eq!(
            remove(&edited, gemini).unwrap(),
            "// gemini\n{\"mcpServers\": {}}\n"
        );
    }

    /// An empty matcher is no matcher (every source): ours under
    /// `"matcher": ""` on an event setup writes without one is right as it is.
    #[test]
    fn an_empty_matcher_is_none() {
        let text = r#"{"hooks": {
  "PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "'/opt/ask user/ask_user' hook claude-code --timeout 1800", "timeout": 1830}]}],
  "Elicitation": [{"matcher": "", "hooks": [{"type": "command", "command": "'/opt/ask user/ask_user' hook claude-code --timeout 1800", "timeout": 1830}]}]
}}
"#;
        assert!(configured(text, claude()).unwrap());
        assert_eq!(set(text, claude(), &native()).unwrap(), text);
    }

    /// Only a file setup makes from nothing gets a newline at its end; a
    /// person's file without one keeps it so.
    #[test]
    fn a_file_without_a_newline_at_its_end_stays_so() {
        let text = r#"{"env": {"FOO": "1"}}"#;
        let edited = set(text, claude(), &native()).unwrap();
        assert!(edited.ends_with('}'), "{edited:?}");
        assert!(configured(&edited, claude()).unwrap());
    }

    #[test]
    fn wrong_shapes_name_line_and_column() {
        let error = set("{\n \"hooks\": []}", claude(), &native()).unwrap_err();
        assert_eq!((error.line, error.column), (2, 11), "{error:?}");
        assert!(error.message.contains("\"hooks\" must be an object"));
        let error = remove("{\"hooks\": {\"Elicitation\": {}}}", claude()).unwrap_err();
        assert!(error.message.contains("\"Elicitation\" must be an array"));
        let error = set("{\"a\": 1,, }", claude(), &native()).unwrap_err();
        assert_eq!((error.line, error.column), (1, 9), "{error:?}");
    }

    mod any_settings {
        use super::*;
        use proptest::prelude::*;

        /// Settings with other hooks: any of three events, each with one to
        /// three groups (a matcher or none, including ours), each with one or
        /// two commands of the person's; written compact or pretty.
        fn settings() -> impl Strategy<Value = String> {
            let hook = prop_oneof![Just("a"), Just("notify-send asked"), Just("~/bin/x hook")]
                .prop_map(|command| serde_json::json!({"type": "command", "command": command}));
            let matcher = prop::option::of(prop_oneof![
                Just("AskUserQuestion"),
                Just("Bash"),
                Just(""),
                Just("*")
            ]);
            let group = (matcher, prop::collection::vec(hook, 1..3)).prop_map(|(m, hooks)| {
                let mut group = serde_json::json!({"hooks": hooks});
                if let Some(m) = m {
                    group["matcher"] = Json::from(m);
                }
                group
            });
            let events = prop::collection::btree_map(
                prop_oneof![Just("PreToolUse"), Just("Elicitation"), Just("Stop")],
                prop::collection::vec(group, 1..4),
                0..3,
            );
            (events, any::<bool>(), any::<bool>()).prop_map(|(events, pretty, other)| {
                let mut value = serde_json::json!({"hooks": events});
                if other {
                    value["permissions"] = serde_json::json!({"allow": ["Bash(ls:*)"]});
                }
                if pretty {
                    serde_json::to_string_pretty(&value).unwrap()
                } else {
                    value.to_string()
                }
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

            #[test]
            fn set_is_idempotent_and_remove_gives_back_every_other_hook(text in settings()) {
                let set_once = set(&text, claude(), &native()).unwrap();
                prop_assert!(configured(&set_once, claude()).unwrap());
                prop_assert_eq!(set(&set_once, claude(), &native()).unwrap(), set_once.clone());
                let removed = remove(&set_once, claude()).unwrap();
                let before: Json = serde_json::from_str(&text).unwrap();
                let after: Json = serde_json::from_str(&removed).unwrap();
                // Every key, event, group and hook of the person's, in order.
                let mut before = before;
                if before["hooks"].as_object().is_some_and(|hooks| hooks.is_empty()) {
                    // An empty `hooks` that ours filled and emptied again goes.
                    before.as_object_mut().unwrap().remove("hooks");
                }
                prop_assert_eq!(after, before);
                prop_assert!(!configured(&removed, claude()).unwrap());
            }
        }
    }

    /// `text` without its `//` and `/* */` comments (none inside strings
    /// in these tests), for serde_json.
    fn strip(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("//") {
                rest = after.find('\n').map_or("", |at| &after[at..]);
            } else if let Some(after) = rest.strip_prefix("/*") {
                rest = after.find("*/").map_or("", |at| &after[at + 2..]);
            } else {
                let c = rest.chars().next().unwrap();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        out
    }
}
