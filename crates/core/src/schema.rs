//! The published JSON Schemas (2020-12), kept as files in `schemas/` and
//! embedded in the binary: `ask_user schema input|prompt|answer|error`.

/// Which document a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// A tool input, in every dialect of docs/documents.md's "Input dialects".
    Input,
    /// The prompt document that execute and prompt print (docs/documents.md: "Prompt document").
    Prompt,
    /// The answer document that ask, answer and mcp print (docs/documents.md: "Answer document").
    Answer,
    /// The error document (docs/documents.md: "Error document and codes").
    Error,
}

pub const INPUT: &str = include_str!("../schemas/input.json");
pub const PROMPT: &str = include_str!("../schemas/prompt.json");
pub const ANSWER: &str = include_str!("../schemas/answer.json");
pub const ERROR: &str = include_str!("../schemas/error.json");

impl Schema {
    pub const ALL: [Schema; 4] = [Schema::Input, Schema::Prompt, Schema::Answer, Schema::Error];

    /// The schema as kept in `schemas/` (pretty-printed).
    pub fn text(self) -> &'static str {
        match self {
            Schema::Input => INPUT,
            Schema::Prompt => PROMPT,
            Schema::Answer => ANSWER,
            Schema::Error => ERROR,
        }
    }

    /// The schema as one line, as stdout carries every document.
    pub fn line(self) -> String {
        compact(self.text())
    }
}

/// Removes the white space between JSON tokens, keeping key order and every
/// string exactly as written (re-serializing a `Value` would sort the keys).
pub fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_schema_lists_every_code() {
        let schema: serde_json::Value = serde_json::from_str(ERROR).unwrap();
        let codes = &schema["properties"]["error"]["properties"]["code"]["enum"];
        assert_eq!(codes, &serde_json::json!(crate::error::AskError::CODES));
    }

    #[test]
    fn compact_keeps_strings_and_order() {
        let text = "{\n  \"b\": \"a  \\\" }\",\n  \"a\": [1, 2]\n}\n";
        assert_eq!(compact(text), r#"{"b":"a  \" }","a":[1,2]}"#);
    }

    #[test]
    fn every_schema_is_a_2020_12_object_schema_on_one_line() {
        for schema in Schema::ALL {
            let line = schema.line();
            assert!(!line.contains('\n'), "{schema:?}");
            let value: serde_json::Value = serde_json::from_str(&line).unwrap();
            let original: serde_json::Value = serde_json::from_str(schema.text()).unwrap();
            assert_eq!(value, original, "{schema:?}");
            assert_eq!(
                value["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{schema:?}"
            );
            assert_eq!(value["type"], "object", "{schema:?}");
        }
    }
}
