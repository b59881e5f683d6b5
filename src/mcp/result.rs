//! Tool results: every outcome as its JSON document in a text block (what
//! models and clients that read only text see), and the answer or prompt
//! document also as structuredContent, which the advertised outputSchema
//! describes.
//!
//! Error results (`isError: true`) carry their error document in the text
//! block only. The MCP specification makes structuredContent conform to the
//! outputSchema, which describes a tool's result; a tool execution error is
//! reported in `content` for the model to read. Strict clients (the official
//! TypeScript SDK, the MCP Inspector, mcpdo) validate any structuredContent
//! against the outputSchema, error results included, and throw away a result
//! that does not match; without structuredContent they pass the error on.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::answer::AnswerDocument;
use crate::error::AskError;
use crate::prompt::PromptDocument;

/// What the model reads next to a relayed prompt document.
pub const RELAY_NOTE: &str = "This MCP client cannot show a form, so nobody has been asked yet. Show rendered_markdown to the person and end your turn; their reply is the answer (see answer_instructions). Do not answer for them.";

/// With the document's `hint` (how to resume a question the inbox keeps)
/// also as a text block of its own, for the model to read.
pub fn answered(document: &AnswerDocument) -> CallToolResult {
    structured(document, document.hint.as_deref())
}

pub fn error(err: &AskError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(crate::document_line(
        &err.document(),
    ))])
}

pub fn relay(document: &PromptDocument) -> CallToolResult {
    structured(document, Some(RELAY_NOTE))
}

fn structured<T: Serialize>(document: &T, note: Option<&str>) -> CallToolResult {
    let mut content = vec![ContentBlock::text(crate::document_line(document))];
    content.extend(note.map(ContentBlock::text));
    let mut result = CallToolResult::success(content);
    result.structured_content = serde_json::to_value(document).ok();
    result
}
