//! One elicitation form per call: the questions as a flat requested schema,
//! and the person's reply read back into an answer document.
//!
//! An elicitation schema is a flat object of primitive properties (no nesting,
//! no per-option descriptions), so every question becomes one property, plus
//! one optional string for its "Other" answer and one for a note on the answer
//! (`<id>.note`). Multi-select arrays and titled
//! `oneOf` enums exist only from protocol 2025-11-25 on; older clients get
//! `enum` + `enumNames` and one boolean per option instead.

use std::collections::HashSet;

use rmcp::model::{
    BooleanSchema, ConstTitle, ElicitationSchema, EnumSchema, LegacyEnumSchema,
    MultiSelectEnumSchema, PrimitiveSchemaDefinition, ProtocolVersion, SingleSelectEnumSchema,
    StringSchema, TitledItems, TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema,
};
use serde_json::{Map, Value};

use crate::answer::{AnswerDocument, Choice, MAX_NOTE_CHARS, invalid_reply, parse_reply};
use crate::error::{AskError, Detail};
use crate::model::{Default, Kind, Prompt, Question};
use crate::text::fold_line;

/// Which schema vocabulary the client understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// 2025-11-25 and later: titled `oneOf` single select, `anyOf` arrays.
    Titled,
    /// 2025-06-18 and earlier: `enum` + `enumNames`, no arrays.
    Legacy,
}

impl Dialect {
    pub fn for_version(version: Option<&ProtocolVersion>) -> Self {
        match version {
            Some(v) if v.as_str() >= ProtocolVersion::V_2025_11_25.as_str() => Dialect::Titled,
            _ => Dialect::Legacy,
        }
    }
}

/// What one form property answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// The question's own answer (option ids, text or a boolean).
    Answer,
    /// The free-text "Other" answer of a select question.
    Other,
    /// Legacy multi-select: whether option `index` is chosen.
    OptionFlag(usize),
    /// The person's note on the question's answer (any kind).
    Note,
}

#[derive(Debug, Clone)]
struct Field {
    key: String,
    question: usize,
    role: Role,
}

/// The elicitation for one prompt: what the person reads and fills in.
#[derive(Debug, Clone)]
pub struct Form {
    pub message: String,
    pub schema: ElicitationSchema,
    dialect: Dialect,
    fields: Vec<Field>,
}

impl Form {
    pub fn new(prompt: &Prompt, dialect: Dialect) -> Self {
        let mut builder = FormBuilder {
            dialect,
            taken: prompt.questions.iter().map(|q| q.id.clone()).collect(),
            fields: Vec::new(),
            properties: Vec::new(),
            required: Vec::new(),
        };
        let single = prompt.questions.len() == 1;
        for (index, question) in prompt.questions.iter().enumerate() {
            builder.question(index, question, single);
        }
        let mut schema = ElicitationSchema::builder().build_unchecked();
        schema.property_order = Some(builder.properties.iter().map(|(k, _)| k.clone()).collect());
        schema.properties = builder.properties.into_iter().collect();
        schema.required = (!builder.required.is_empty()).then_some(builder.required);
        Form {
            message: message(prompt),
            schema,
            dialect,
            fields: builder.fields,
        }
    }

    /// Reads an accepted form's content into the answer document.
    pub fn read(
        &self,
        prompt: &Prompt,
        content: Option<&Value>,
    ) -> Result<AnswerDocument, AskError> {
        let empty = Map::new();
        let content = match content {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(AskError::InvalidReply(Detail::new(
                    "the client sent a form reply that is not a JSON object; ask the question again",
                )));
            }
        };
        let total = prompt.questions.len();
        let answers = prompt
            .questions
            .iter()
            .enumerate()
            .map(|(index, question)| {
                let note = self.value(content, index, &Role::Note).and_then(text_of);
                self.choice(question, index, content)
                    .map(|choice| choice.into_answer(question))
                    .ok_or_else(|| invalid_reply(question, index, total))?
                    .noted(note.as_deref(), index, total)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AnswerDocument::answered(answers).answered_by_person(
            ask_user_platform::user::name(),
            crate::answer::Channel::Form,
        ))
    }

    fn value<'c>(
        &self,
        content: &'c Map<String, Value>,
        index: usize,
        role: &Role,
    ) -> Option<&'c Value> {
        self.fields
            .iter()
            .find(|f| f.question == index && &f.role == role)
            .and_then(|f| content.get(&f.key))
            .filter(|v| !v.is_null())
    }

    /// The person's choice for one question; `None` when the reply answers nothing.
    fn choice(
        &self,
        question: &Question,
        index: usize,
        content: &Map<String, Value>,
    ) -> Option<Choice> {
        let answer = self.value(content, index, &Role::Answer);
        match question.kind {
            // A boolean reads as "yes"/"no": a confirm's answer, a text's words.
            Kind::Text | Kind::Confirm => match answer {
                Some(value) => parse_reply(question, &text_of(value)?),
                None => parse_reply(question, ""),
            },
            Kind::SingleSelect | Kind::MultiSelect => {
                let mut indices = match answer {
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|item| self.option_index(question, &text_of(item)?))
                        .collect::<Option<Vec<_>>>()?,
                    Some(value) => {
                        let text = text_of(value)?;
                        if text.trim().is_empty() {
                            Vec::new()
                        } else {
                            vec![self.option_index(question, &text)?]
                        }
                    }
                    None => Vec::new(),
                };
                for (option, _) in question.options.iter().enumerate() {
                    if let Some(flag) = self.value(content, index, &Role::OptionFlag(option))
                        && flag.as_bool()?
                    {
                        indices.push(option);
                    }
                }
                let other = self
                    .value(content, index, &Role::Other)
                    .and_then(text_of)
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty());
                if question.kind == Kind::SingleSelect && indices.len() > 1 {
                    return None;
                }
                match (indices.is_empty(), other) {
                    (true, None) => (!question.required).then_some(Choice::Skipped),
                    (_, other) => Some(Choice::Options { indices, other }),
                }
            }
        }
    }

    /// An option named the way this form named it: its id (titled) or label (legacy).
    fn option_index(&self, question: &Question, value: &str) -> Option<usize> {
        question.options.iter().position(|c| match self.dialect {
            Dialect::Titled => c.id == value,
            Dialect::Legacy => shown_label(c) == value || c.label == value,
        })
    }
}

/// Strings as they are, numbers as their text; anything else answers nothing.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(crate::text::yes_no(*b).to_string()),
        _ => None,
    }
}

struct FormBuilder {
    dialect: Dialect,
    taken: HashSet<String>,
    fields: Vec<Field>,
    properties: Vec<(String, PrimitiveSchemaDefinition)>,
    required: Vec<String>,
}

impl FormBuilder {
    /// A property name not used yet: `base`, else `base_2`, `base_3`, …
    fn fresh_key(&mut self, base: String) -> String {
        let mut key = base.clone();
        let mut n = 2;
        while self.taken.contains(&key) {
            key = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(key.clone());
        key
    }

    fn add(
        &mut self,
        key: String,
        question: usize,
        role: Role,
        schema: PrimitiveSchemaDefinition,
        required: bool,
    ) {
        if required {
            self.required.push(key.clone());
        }
        self.fields.push(Field {
            key: key.clone(),
            question,
            role,
        });
        self.properties.push((key, schema));
    }

    fn question(&mut self, index: usize, question: &Question, single: bool) {
        let title = field_title(question);
        let description = field_description(question, single);
        // With Other, either the options or the text may carry the answer, so
        // neither property alone can be required; `Form::read` checks the pair.
        let required = question.required && !(question.kind.is_select() && question.allow_other);
        let key = question.id.clone();
        match (question.kind, self.dialect) {
            (Kind::SingleSelect, Dialect::Titled) => {
                let mut schema = TitledSingleSelectEnumSchema::new(
                    question
                        .options
                        .iter()
                        .map(|c| ConstTitle::new(c.id.clone(), shown_label(c)))
                        .collect(),
                );
                schema.title = Some(title.into());
                schema.description = description.map(Into::into);
                schema.default = default_ids(question).first().cloned();
                let schema = EnumSchema::Single(SingleSelectEnumSchema::Titled(schema));
                self.add(
                    key,
                    index,
                    Role::Answer,
                    PrimitiveSchemaDefinition::Enum(schema),
                    required,
                );
            }
            (Kind::SingleSelect, Dialect::Legacy) => {
                let labels: Vec<String> = question.options.iter().map(shown_label).collect();
                let mut schema = LegacyEnumSchema::new(labels.clone());
                schema.enum_names = Some(labels.clone());
                schema.title = Some(title.into());
                schema.description = description.map(Into::into);
                schema.default = default_ids(question)
                    .first()
                    .and_then(|id| question.option(id))
                    .map(shown_label);
                let schema = EnumSchema::Legacy(schema);
                self.add(
                    key,
                    index,
                    Role::Answer,
                    PrimitiveSchemaDefinition::Enum(schema),
                    required,
                );
            }
            (Kind::MultiSelect, Dialect::Titled) => {
                let mut schema = TitledMultiSelectEnumSchema::new(TitledItems::new(
                    question
                        .options
                        .iter()
                        .map(|c| ConstTitle::new(c.id.clone(), shown_label(c)))
                        .collect(),
                ))
                .with_title(title)
                .with_max_items(question.options.len() as u64);
                if required {
                    schema = schema.with_min_items(1);
                }
                if let Some(description) = description {
                    schema = schema.with_description(description);
                }
                let defaults = default_ids(question);
                if !defaults.is_empty() {
                    schema = schema.with_default(defaults);
                }
                let schema = EnumSchema::Multi(MultiSelectEnumSchema::Titled(schema));
                self.add(
                    key,
                    index,
                    Role::Answer,
                    PrimitiveSchemaDefinition::Enum(schema),
                    required,
                );
            }
            (Kind::MultiSelect, Dialect::Legacy) => {
                // No arrays before 2025-11-25: one checkbox per option, titled
                // "question: label" so each still reads on its own.
                // Pre-filled only when the input has a default, which then
                // names the whole selection.
                let defaults = default_ids(question);
                for (option, choice) in question.options.iter().enumerate() {
                    let key = self.fresh_key(format!("{}.{}", question.id, choice.id));
                    let mut schema =
                        BooleanSchema::new().title(format!("{title}: {}", shown_label(choice)));
                    if !defaults.is_empty() {
                        schema = schema.with_default(defaults.contains(&choice.id));
                    }
                    if let Some(text) = &choice.description {
                        schema = schema.description(text.clone());
                    }
                    self.add(
                        key,
                        index,
                        Role::OptionFlag(option),
                        PrimitiveSchemaDefinition::Boolean(schema),
                        false,
                    );
                }
            }
            (Kind::Text, _) => {
                let mut schema = StringSchema::new().title(title);
                if let Some(description) = description {
                    schema = schema.description(description);
                }
                if question.required {
                    schema = schema.min_length(1);
                }
                if let Some(Default::Text(text)) = &question.default {
                    schema = schema.with_default(text.clone());
                }
                self.add(
                    key,
                    index,
                    Role::Answer,
                    PrimitiveSchemaDefinition::String(schema),
                    required,
                );
            }
            (Kind::Confirm, _) => {
                let mut schema = BooleanSchema::new().title(title);
                if let Some(description) = description {
                    schema = schema.description(description);
                }
                if let Some(Default::Confirm(yes)) = question.default {
                    schema = schema.with_default(yes);
                }
                self.add(
                    key,
                    index,
                    Role::Answer,
                    PrimitiveSchemaDefinition::Boolean(schema),
                    required,
                );
            }
        }
        if question.kind.is_select() && question.allow_other {
            let key = self.fresh_key(format!("{}.other", question.id));
            let schema = StringSchema::new()
                .title("Other (in your own words)")
                .description("Leave empty to use the choices above.");
            self.add(
                key,
                index,
                Role::Other,
                PrimitiveSchemaDefinition::String(schema),
                false,
            );
        }
        let key = self.fresh_key(format!("{}.note", question.id));
        let schema = StringSchema::new()
            .title("Note (optional)")
            .description("A remark to go with your answer; it never replaces the answer.")
            .max_length(MAX_NOTE_CHARS as u32);
        self.add(
            key,
            index,
            Role::Note,
            PrimitiveSchemaDefinition::String(schema),
            false,
        );
    }
}

/// The option label as the form shows it; the form has no other place to say "recommended".
fn shown_label(choice: &crate::model::Choice) -> String {
    if choice.recommended && !choice.label.to_lowercase().ends_with("(recommended)") {
        format!("{} (recommended)", choice.label)
    } else {
        choice.label.clone()
    }
}

fn default_ids(question: &Question) -> Vec<String> {
    match &question.default {
        Some(Default::Options(ids)) => ids.clone(),
        _ => Vec::new(),
    }
}

fn field_title(question: &Question) -> String {
    let text = fold_line(&question.text);
    match &question.header {
        Some(header) => format!("{header}: {text}"),
        None => text,
    }
}

/// A placeholder as an example: "e.g. " before it, unless it says so itself
/// ("e.g., processUserData", "for example …").
fn example(placeholder: &str) -> String {
    let lower = placeholder.to_lowercase();
    if ["e.g", "eg.", "for example", "for instance", "example:"]
        .iter()
        .any(|prefix| lower.starts_with(prefix))
    {
        placeholder.to_string()
    } else {
        format!("e.g. {placeholder}")
    }
}

/// The question's own context, its placeholder, and the option descriptions
/// (a form option has only a title).
fn field_description(question: &Question, single: bool) -> Option<String> {
    let mut parts = Vec::new();
    if !single {
        parts.extend(question.context.clone());
    }
    if let Some(placeholder) = &question.placeholder {
        parts.push(example(placeholder));
    }
    let described: Vec<String> = question
        .options
        .iter()
        .filter_map(|c| {
            c.description
                .as_ref()
                .map(|d| format!("{}: {}", c.label, fold_line(d)))
        })
        .collect();
    if !described.is_empty() {
        parts.push(described.join("\n"));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// What the person reads above the fields: title, context and, for one
/// question, the question itself.
fn message(prompt: &Prompt) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(prompt.title.clone());
    if let [question] = prompt.questions.as_slice() {
        parts.push(question.text.clone());
        parts.extend(question.context.clone().or_else(|| prompt.context.clone()));
    } else {
        parts.extend(prompt.context.clone());
        parts.push(format!(
            "Please answer the {} questions below.",
            prompt.questions.len()
        ));
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(json: &str) -> Prompt {
        crate::input::parse(json.as_bytes()).unwrap()
    }

    fn schema_json(form: &Form) -> Value {
        serde_json::to_value(&form.schema).unwrap()
    }

    #[test]
    fn titled_single_select_uses_option_ids_and_keeps_other_optional() {
        let p = prompt(
            r#"{"question":"DB?","options":[{"label":"Postgres","recommended":true},"SQLite"],"allow_other":true}"#,
        );
        let form = Form::new(&p, Dialect::Titled);
        let schema = schema_json(&form);
        let q1 = &schema["properties"]["q1"];
        assert_eq!(
            q1["oneOf"][0],
            serde_json::json!({"const":"1","title":"Postgres (recommended)"})
        );
        assert_eq!(schema["properties"]["q1.other"]["type"], "string");
        assert!(schema.get("required").is_none());
        let keys: Vec<_> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["q1", "q1.other", "q1.note"]);

        let doc = form.read(&p, Some(&serde_json::json!({"q1":"2"}))).unwrap();
        assert_eq!(doc.answers[0].values, ["SQLite"]);
        let doc = form
            .read(&p, Some(&serde_json::json!({"q1.other":" MySQL "})))
            .unwrap();
        assert_eq!(doc.answers[0].custom_text.as_deref(), Some("MySQL"));
        assert!(form.read(&p, Some(&serde_json::json!({}))).is_err());
        assert!(form.read(&p, Some(&serde_json::json!({"q1":"7"}))).is_err());
    }

    #[test]
    fn legacy_checkboxes_are_pre_filled_only_from_the_inputs_default() {
        let plain = prompt(r#"{"question":"Which?","options":["a","b","c"],"multi_select":true}"#);
        let schema = schema_json(&Form::new(&plain, Dialect::Legacy));
        for key in ["q1.1", "q1.2", "q1.3"] {
            assert!(
                schema["properties"][key].get("default").is_none(),
                "{schema}"
            );
        }
        let given = prompt(
            r#"{"questions":[{"question":"Which?","options":["a","b","c"],"type":"multi-select","default":["1","3"]}]}"#,
        );
        let schema = schema_json(&Form::new(&given, Dialect::Legacy));
        let defaults: Vec<_> = ["q1.1", "q1.2", "q1.3"]
            .iter()
            .map(|key| schema["properties"][key]["default"].clone())
            .collect();
        assert_eq!(defaults, [true, false, true]);
    }

    #[test]
    fn a_placeholder_is_an_example_once() {
        for (placeholder, shown) in [
            ("processUserData", "e.g. processUserData"),
            ("e.g., processUserData", "e.g., processUserData"),
            ("E.g. main", "E.g. main"),
            ("For example: main", "For example: main"),
            ("eg. main", "eg. main"),
        ] {
            let p = prompt(&format!(
                r#"{{"questions":[{{"question":"Name?","type":"text","placeholder":"{placeholder}"}}]}}"#
            ));
            let schema = schema_json(&Form::new(&p, Dialect::Titled));
            assert_eq!(
                schema["properties"]["q1"]["description"], shown,
                "{placeholder}"
            );
        }
    }

    #[test]
    fn legacy_multi_select_is_one_boolean_per_option() {
        let p = prompt(r#"{"question":"Which?","options":["a","b","c"],"multi_select":true}"#);
        let form = Form::new(&p, Dialect::Legacy);
        let schema = schema_json(&form);
        let keys: Vec<_> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["q1.1", "q1.2", "q1.3", "q1.note"]);
        let doc = form
            .read(
                &p,
                Some(&serde_json::json!({"q1.1":true,"q1.2":false,"q1.3":true})),
            )
            .unwrap();
        assert_eq!(doc.answers[0].values, ["a", "c"]);
        assert_eq!(
            doc.answers[0].option_ids.as_deref(),
            Some(&["1".to_string(), "3".to_string()][..])
        );
    }

    #[test]
    fn legacy_single_select_names_options_by_label() {
        let p = prompt(r#"{"question":"n?","options":["2","1"]}"#);
        let form = Form::new(&p, Dialect::Legacy);
        let doc = form.read(&p, Some(&serde_json::json!({"q1":"1"}))).unwrap();
        assert_eq!(
            doc.answers[0].option_ids.as_deref(),
            Some(&["2".to_string()][..])
        );
    }

    #[test]
    fn keys_never_collide_with_question_ids() {
        let p = prompt(
            r#"{"questions":[{"id":"a","question":"A?","options":["x","y"],"allow_other":true},{"id":"a.other","question":"B?"}]}"#,
        );
        let form = Form::new(&p, Dialect::Titled);
        let keys: Vec<_> = schema_json(&form)["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            ["a", "a.other_2", "a.note", "a.other", "a.other.note"]
        );
    }

    #[test]
    fn a_note_is_kept_beside_the_choice_in_both_dialects() {
        let p = prompt(
            r#"{"questions":[{"question":"DB?","options":["Postgres","SQLite"]},
                {"question":"Extras?","options":["a","b"],"multi_select":true,"required":false}]}"#,
        );
        for dialect in [Dialect::Titled, Dialect::Legacy] {
            let form = Form::new(&p, dialect);
            let schema = schema_json(&form);
            let note = &schema["properties"]["q1.note"];
            assert_eq!(note["type"], "string", "{dialect:?}");
            assert_eq!(note["maxLength"], 1000);
            assert_eq!(note["title"], "Note (optional)");
            let picked = match dialect {
                Dialect::Titled => serde_json::json!("2"),
                Dialect::Legacy => serde_json::json!("SQLite"),
            };
            let doc = form
                .read(
                    &p,
                    Some(&serde_json::json!({"q1": picked, "q1.note": " keep it small ", "q2.note": "later"})),
                )
                .unwrap();
            let line = serde_json::to_string(&doc.answers).unwrap();
            assert_eq!(
                line,
                r#"[{"questionId":"q1","values":["SQLite"],"optionIds":["2"],"note":"keep it small"},{"questionId":"q2","values":[],"optionIds":[],"note":"later"}]"#,
                "{dialect:?}"
            );
            // A note alone does not answer a required question.
            let err = form
                .read(&p, Some(&serde_json::json!({"q1.note": "either"})))
                .unwrap_err();
            assert_eq!(err.code(), "INVALID_REPLY");
            assert_eq!(err.path(), Some("questions[0]"));
            let long = "n".repeat(MAX_NOTE_CHARS + 1);
            let err = form
                .read(
                    &p,
                    Some(&serde_json::json!({"q1": picked, "q1.note": long})),
                )
                .unwrap_err();
            assert_eq!(err.code(), "INVALID_REPLY");
            assert_eq!(err.path(), Some("questions[0]"));
            assert_eq!(
                err.message(),
                "the note on question 1 of 2 is 1001 characters; a note is at most 1000"
            );
        }
    }

    /// Every field kind with every optional part: header, own context,
    /// option descriptions, Other, defaults, placeholder, a question that may be skipped.
    const EVERY_PART: &str = r#"{"title":"Setup","context":"For the service.","questions":[
      {"id":"db","question":"Which\ndatabase?","header":"DB","context":"Pick one.",
       "options":[{"label":"PostgreSQL","description":"relational\nmature","recommended":true},"SQLite"],
       "default":"SQLite","allow_other":true},
      {"id":"checks","question":"Checks?","options":["lint","test (Recommended)"],"multi_select":true,
       "default":["test (Recommended)"],"required":false},
      {"id":"name","question":"Name?","type":"text","placeholder":"api","default":"main"},
      {"id":"ship","question":"Ship?","type":"confirm","default":true}]}"#;

    #[test]
    fn titled_form_carries_every_part_of_the_questions() {
        // Every question has an optional note field after its own fields.
        let note = serde_json::json!({"type": "string", "title": "Note (optional)",
            "description": "A remark to go with your answer; it never replaces the answer.",
            "maxLength": 1000});
        let p = prompt(EVERY_PART);
        let form = Form::new(&p, Dialect::Titled);
        assert_eq!(
            form.message,
            "Setup\n\nFor the service.\n\nPlease answer the 4 questions below."
        );
        assert_eq!(
            schema_json(&form),
            serde_json::json!({"type": "object", "properties": {
                "db": {"type": "string", "title": "DB: Which database?",
                       "description": "Pick one.\n\nPostgreSQL: relational mature",
                       "oneOf": [{"const": "1", "title": "PostgreSQL (recommended)"},
                                 {"const": "2", "title": "SQLite"}],
                       "default": "2"},
                "db.other": {"type": "string", "title": "Other (in your own words)",
                             "description": "Leave empty to use the choices above."},
                "db.note": note.clone(),
                "checks": {"type": "array", "title": "Checks?", "maxItems": 2,
                           "items": {"anyOf": [{"const": "1", "title": "lint"},
                                               {"const": "2", "title": "test (Recommended)"}]},
                           "default": ["2"]},
                "checks.note": note.clone(),
                "name": {"type": "string", "title": "Name?", "description": "e.g. api",
                         "minLength": 1, "default": "main"},
                "name.note": note.clone(),
                "ship": {"type": "boolean", "title": "Ship?", "default": true},
                "ship.note": note},
             "required": ["name", "ship"]})
        );
    }

    #[test]
    fn legacy_form_names_options_by_label_and_gives_checkboxes() {
        let p = prompt(EVERY_PART);
        let form = Form::new(&p, Dialect::Legacy);
        let schema = schema_json(&form);
        assert_eq!(
            schema["properties"]["db"],
            serde_json::json!({"type": "string", "title": "DB: Which database?",
                "description": "Pick one.\n\nPostgreSQL: relational mature",
                "enum": ["PostgreSQL (recommended)", "SQLite"],
                "enumNames": ["PostgreSQL (recommended)", "SQLite"], "default": "SQLite"})
        );
        assert_eq!(
            schema["properties"]["checks.2"],
            serde_json::json!({"type": "boolean", "title": "Checks?: test (Recommended)", "default": true})
        );
        assert_eq!(schema["properties"]["checks.1"]["default"], false);
        // Read back: a label as shown (with its mark) or as written, numbers as text.
        let doc = form
            .read(
                &p,
                Some(
                    &serde_json::json!({"db": "PostgreSQL (recommended)", "checks.1": true,
                    "name": 42, "ship": "no"}),
                ),
            )
            .unwrap();
        let line = serde_json::to_string(&doc.answers).unwrap();
        assert_eq!(
            line,
            r#"[{"questionId":"db","values":["PostgreSQL"],"optionIds":["1"]},{"questionId":"checks","values":["lint"],"optionIds":["1"]},{"questionId":"name","values":["42"]},{"questionId":"ship","values":["no"]}]"#
        );
        let doc = form
            .read(
                &p,
                Some(&serde_json::json!({"db": "PostgreSQL", "name": "x", "ship": true})),
            )
            .unwrap();
        assert_eq!(
            doc.answers[0].option_ids.as_deref(),
            Some(&["1".to_string()][..])
        );
        assert_eq!(doc.answers[1].values, Vec::<String>::new(), "skipped");
        assert_eq!(doc.answers[3].values, ["yes"]);
    }

    #[test]
    fn a_required_field_is_required_unless_other_may_answer_it() {
        let p = prompt(
            r#"{"questions":[{"id":"a","question":"A?","options":["x","y"]},
            {"id":"b","question":"B?","options":["x","y"],"multi_select":true},
            {"id":"c","question":"C?","options":["x","y"],"allow_other":true},
            {"id":"d","question":"D?"},{"id":"e","question":"E?","required":false}]}"#,
        );
        for dialect in [Dialect::Titled, Dialect::Legacy] {
            let schema = schema_json(&Form::new(&p, dialect));
            let required = if dialect == Dialect::Titled {
                serde_json::json!(["a", "b", "d"])
            } else {
                // Legacy multi-select is checkboxes: none of them alone is required.
                serde_json::json!(["a", "d"])
            };
            assert_eq!(schema["required"], required, "{dialect:?}");
        }
    }

    #[test]
    fn property_names_skip_every_taken_one() {
        let p = prompt(
            r#"{"questions":[{"id":"a","question":"A?","options":["x","y"],"allow_other":true},
            {"id":"a.other","question":"B?"},{"id":"a.other_2","question":"C?"}]}"#,
        );
        let keys: Vec<_> = schema_json(&Form::new(&p, Dialect::Titled))["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        // Each question's note field follows its own fields.
        assert_eq!(
            keys,
            [
                "a",
                "a.other_3",
                "a.note",
                "a.other",
                "a.other.note",
                "a.other_2",
                "a.other_2.note"
            ]
        );
    }

    #[test]
    fn the_message_holds_one_question_with_its_context() {
        let own = prompt(
            r#"{"title":"T","questions":[{"question":"Q?","context":"Own.","options":["a","b"]}]}"#,
        );
        assert_eq!(Form::new(&own, Dialect::Titled).message, "T\n\nQ?\n\nOwn.");
        let shared =
            prompt(r#"{"context":"Shared.","questions":[{"question":"Q?","options":["a","b"]}]}"#);
        let form = Form::new(&shared, Dialect::Titled);
        assert_eq!(form.message, "Q?\n\nShared.");
        // With one question the context is in the message, not repeated on the field.
        assert!(
            schema_json(&form)["properties"]["q1"]
                .get("description")
                .is_none()
        );
    }

    #[test]
    fn replies_that_do_not_fit_the_question_answer_nothing() {
        let p = prompt(
            r#"{"questions":[{"question":"One?","options":["a","b"]},{"question":"Ok?","type":"confirm"}]}"#,
        );
        let form = Form::new(&p, Dialect::Titled);
        for (content, index) in [
            (serde_json::json!({"q1": ["1", "2"], "q2": true}), 0),
            (serde_json::json!({"q1": {"id": "1"}, "q2": true}), 0),
            (serde_json::json!({"q1": "1", "q2": "maybe"}), 1),
            (serde_json::json!({"q1": "1", "q2": [true]}), 1),
        ] {
            let err = form.read(&p, Some(&content)).unwrap_err();
            assert_eq!(
                err.path(),
                Some(format!("questions[{index}]").as_str()),
                "{content}"
            );
        }
        let doc = form
            .read(&p, Some(&serde_json::json!({"q1": ["2"], "q2": "y"})))
            .unwrap();
        assert_eq!(doc.answers[0].values, ["b"]);
        assert_eq!(doc.answers[1].values, ["yes"]);
        assert!(form.read(&p, Some(&serde_json::json!("q1"))).is_err());
    }

    #[test]
    fn dialect_follows_the_protocol_version() {
        assert_eq!(
            Dialect::for_version(Some(&ProtocolVersion::V_2025_06_18)),
            Dialect::Legacy
        );
        assert_eq!(
            Dialect::for_version(Some(&ProtocolVersion::V_2025_11_25)),
            Dialect::Titled
        );
        assert_eq!(
            Dialect::for_version(Some(&ProtocolVersion::V_2026_07_28)),
            Dialect::Titled
        );
        assert_eq!(Dialect::for_version(None), Dialect::Legacy);
    }
}
