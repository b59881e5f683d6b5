//! Tool descriptions for each host (DESIGN §6). Static text: describe reads
//! no stdin and touches no file, because hosts run it for every tool at start-up.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::value::RawValue;

/// Seed 003's flat schema plus `multi_select` and `allow_other`: one flat
/// object schema is what every model provider handles.
pub const TOOL_INPUT_SCHEMA: &str = include_str!("../schemas/tool-input.json");
/// The MCP tool's input: the same, plus `resume` (collect later, DESIGN
/// §10), so that neither question nor options is required on its own.
pub const MCP_INPUT_SCHEMA: &str = include_str!("../schemas/mcp-input.json");
/// The answer document's schema.
pub const ANSWER_SCHEMA: &str = crate::schema::ANSWER;
/// The prompt document as the MCP face returns it when the client cannot show
/// a form (`--fallback prompt`).
pub const MCP_RELAY_SCHEMA: &str = include_str!("../schemas/mcp-relay.json");

/// For hosts where the call returns at once with a prompt to relay.
pub const RELAY_DESCRIPTION: &str = "Ask the person you are working for a structured question when a decision is theirs to make: ambiguous requirements, a trade-off between approaches, or before a destructive or irreversible step. Keep options few (2 to 4 is best, at most 20), short and distinct; put the recommended option first and mark it recommended: true; use context to say why you are asking. The result is JSON: show its rendered_markdown to the person and end your turn; their reply is an option number as answer_format describes. Never assume an answer they did not give.";

/// For hosts where the call blocks until the person answers (MCP).
pub const BLOCKING_DESCRIPTION: &str = "Ask the person you are working for a structured question and wait for their answer, when a decision is theirs to make: ambiguous requirements, a trade-off between approaches, or before a destructive or irreversible step. Keep options few (2 to 4 is best, at most 20), short and distinct; put the recommended option first and mark it recommended: true; use context to say why you are asking. The result lists the chosen option labels and ids; if it says cancelled or timedOut, the person gave no answer: do not assume one. If it carries a hint, the question stays open in the person's inbox: call this tool again later with only {\"resume\": inboxId} to collect their answer.";

/// The hosts' tool formats (`ask_user describe --format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Amp,
    Claude,
    Mcp,
    Openai,
}

#[derive(Serialize)]
struct AmpTool<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a RawValue,
}

#[derive(Serialize)]
struct ClaudeTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a RawValue,
}

#[derive(Serialize)]
pub struct McpTool<'a> {
    pub name: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    #[serde(rename = "inputSchema")]
    pub input_schema: &'a RawValue,
    #[serde(rename = "outputSchema")]
    pub output_schema: McpOutputSchema<'a>,
    pub annotations: McpAnnotations<'a>,
}

/// An answer document, or (fallback `prompt`) the prompt document to relay.
/// MCP clients validate structuredContent against this, so it must admit both.
#[derive(Serialize)]
pub struct McpOutputSchema<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    #[serde(rename = "anyOf")]
    pub any_of: [&'a RawValue; 2],
}

#[derive(Serialize)]
pub struct McpAnnotations<'a> {
    pub title: &'a str,
    #[serde(rename = "readOnlyHint")]
    pub read_only_hint: bool,
    #[serde(rename = "destructiveHint")]
    pub destructive_hint: bool,
    #[serde(rename = "idempotentHint")]
    pub idempotent_hint: bool,
    #[serde(rename = "openWorldHint")]
    pub open_world_hint: bool,
}

#[derive(Serialize)]
struct OpenAiTool<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    function: OpenAiFunction<'a>,
}

#[derive(Serialize)]
struct OpenAiFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a RawValue,
}

/// The schema as one line of JSON, key order kept (stdout carries one line
/// per document; the files in schemas/ are pretty-printed for people).
fn raw(text: &'static str) -> Box<RawValue> {
    // The schemas are checked-in JSON, parsed by a unit test below.
    RawValue::from_string(crate::schema::compact(text)).expect("embedded schema is JSON")
}

fn input_schema() -> &'static RawValue {
    static SCHEMA: OnceLock<Box<RawValue>> = OnceLock::new();
    SCHEMA.get_or_init(|| raw(TOOL_INPUT_SCHEMA))
}

fn mcp_input_schema() -> &'static RawValue {
    static SCHEMA: OnceLock<Box<RawValue>> = OnceLock::new();
    SCHEMA.get_or_init(|| raw(MCP_INPUT_SCHEMA))
}

fn answer_schema() -> &'static RawValue {
    static SCHEMA: OnceLock<Box<RawValue>> = OnceLock::new();
    SCHEMA.get_or_init(|| raw(ANSWER_SCHEMA))
}

fn relay_schema() -> &'static RawValue {
    static SCHEMA: OnceLock<Box<RawValue>> = OnceLock::new();
    SCHEMA.get_or_init(|| raw(MCP_RELAY_SCHEMA))
}

/// Whether `name` may name the tool in `format`: MCP's rule (1 to 128
/// characters of A-Z, a-z, 0-9, `_`, `-`, `.`) for every format, and the
/// Anthropic and OpenAI APIs' stricter one (at most 64, no `.`) for theirs.
/// `Err` says why not, in one sentence.
pub fn check_tool_name(name: &str, format: Format) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || name.len() > 128 || !name.chars().all(allowed) {
        return Err(format!(
            "{name:?} is not a tool name: use 1 to 128 characters of A-Z, a-z, 0-9, _, - and ."
        ));
    }
    if matches!(format, Format::Claude | Format::Openai) && (name.len() > 64 || name.contains('.'))
    {
        return Err(format!(
            "{name:?} is not a tool name for --format {}: use 1 to 64 characters of A-Z, a-z, 0-9, _ and -",
            if format == Format::Claude {
                "claude"
            } else {
                "openai"
            }
        ));
    }
    Ok(())
}

/// The MCP Tool object, named `name`.
pub fn mcp_tool(name: &str) -> McpTool<'_> {
    McpTool {
        name,
        title: "Ask the user",
        description: BLOCKING_DESCRIPTION,
        input_schema: mcp_input_schema(),
        output_schema: McpOutputSchema {
            kind: "object",
            any_of: [answer_schema(), relay_schema()],
        },
        annotations: McpAnnotations {
            title: "Ask the user",
            read_only_hint: true,
            destructive_hint: false,
            idempotent_hint: false,
            open_world_hint: false,
        },
    }
}

/// The description for `format` of the tool named `name` (`crate::TOOL_NAME`
/// unless renamed; see `check_tool_name`), as one line of JSON.
pub fn describe(format: Format, name: &str) -> String {
    let input = input_schema();
    let result = match format {
        Format::Amp => serde_json::to_string(&AmpTool {
            name,
            description: RELAY_DESCRIPTION,
            input_schema: input,
        }),
        Format::Claude => serde_json::to_string(&ClaudeTool {
            name,
            description: RELAY_DESCRIPTION,
            input_schema: input,
        }),
        Format::Mcp => serde_json::to_string(&mcp_tool(name)),
        Format::Openai => serde_json::to_string(&OpenAiTool {
            kind: "function",
            function: OpenAiFunction {
                name,
                description: RELAY_DESCRIPTION,
                parameters: input,
            },
        }),
    };
    result.expect("static descriptions serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_input_is_the_tool_input_plus_resume_and_nothing_required() {
        let tool: serde_json::Value = serde_json::from_str(TOOL_INPUT_SCHEMA).unwrap();
        let mut mcp: serde_json::Value = serde_json::from_str(MCP_INPUT_SCHEMA).unwrap();
        assert!(mcp.get("required").is_none());
        let resume = mcp["properties"].as_object_mut().unwrap().remove("resume");
        assert_eq!(resume.unwrap()["type"], "string");
        for (key, property) in mcp["properties"].as_object().unwrap() {
            let mut expected = tool["properties"][key].clone();
            if let Some(text) = property["description"].as_str()
                && text.ends_with("unless resume is given.")
            {
                expected["description"] = property["description"].clone();
            }
            assert_eq!(property, &expected, "{key}");
        }
        assert_eq!(
            tool["properties"].as_object().unwrap().len(),
            mcp["properties"].as_object().unwrap().len()
        );
    }

    #[test]
    fn tool_names_follow_the_mcp_rule_and_the_apis_stricter_one() {
        let long = "a".repeat(128);
        for name in ["ask_user", "ask_person", "a", "ask.user-2", long.as_str()] {
            assert_eq!(check_tool_name(name, Format::Mcp), Ok(()), "{name}");
            assert_eq!(check_tool_name(name, Format::Amp), Ok(()), "{name}");
        }
        let too_long = "a".repeat(129);
        for name in [
            "",
            "ask user",
            "ask/user",
            "ask_usér",
            "ask:user",
            too_long.as_str(),
        ] {
            let err = check_tool_name(name, Format::Mcp).unwrap_err();
            assert!(err.contains("1 to 128 characters"), "{err}");
        }
        for format in [Format::Claude, Format::Openai] {
            assert_eq!(check_tool_name(&"a".repeat(64), format), Ok(()));
            for name in ["ask.user", &"a".repeat(65)] {
                let err = check_tool_name(name, format).unwrap_err();
                assert!(err.contains("1 to 64 characters"), "{err}");
            }
        }
    }

    #[test]
    fn embedded_schemas_are_json_objects() {
        for text in [
            TOOL_INPUT_SCHEMA,
            MCP_INPUT_SCHEMA,
            ANSWER_SCHEMA,
            MCP_RELAY_SCHEMA,
        ] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert!(value.is_object());
        }
    }

    #[test]
    fn every_format_is_one_line_of_json() {
        for format in [Format::Amp, Format::Claude, Format::Mcp, Format::Openai] {
            let text = describe(format, crate::TOOL_NAME);
            assert!(!text.contains('\n'));
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
        }
    }
}
