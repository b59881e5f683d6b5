//! Tool results: every outcome as its JSON document, in a text block (for
//! clients that read only text) and as structuredContent.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::answer::AnswerDocument;
use crate::error::AskError;
use crate::prompt::PromptDocument;

/// What the model reads next to a relayed prompt document.
pub const RELAY_NOTE: &str = "This MCP client cannot show a form, so nobody has been asked yet. Show rendered_markdown to the person and end your turn; their reply is the answer (see answer_instructions). Do not answer for them.";

pub fn answered(document: &AnswerDocument) -> CallToolResult {
    structured(document, false, None)
}

pub fn error(err: &AskError) -> CallToolResult {
    structured(&err.document(), true, None)
}

pub fn relay(document: &PromptDocument) -> CallToolResult {
    structured(document, false, Some(RELAY_NOTE))
}

fn structured<T: Serialize>(document: &T, is_error: bool, note: Option<&str>) -> CallToolResult {
    let mut content = vec![ContentBlock::text(crate::document_line(document))];
    content.extend(note.map(ContentBlock::text));
    let mut result = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = serde_json::to_value(document).ok();
    result
}
