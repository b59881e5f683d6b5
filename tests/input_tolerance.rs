//! Every tolerance rule of DESIGN §2, through the binary: what is accepted and
//! what it becomes.

mod common;
use common::*;
use serde_json::{Value, json};

fn prompt(input: &str) -> Value {
    ok(input)["prompt"].clone()
}

fn labels(item: &Value) -> Vec<String> {
    item["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn bom_and_surrounding_white_space_are_ignored() {
    let input = "\u{feff}  \n\t{\"question\":\"q\",\"options\":[\"a\",\"b\"]}\r\n \n";
    assert_eq!(prompt(input)["question"], "q");
}

#[test]
fn input_of_exactly_262144_bytes_is_accepted() {
    let base = r#"{"question":"q","options":["a","b"]}"#;
    let input = format!("{base}{}", " ".repeat(262_144 - base.len()));
    assert_eq!(input.len(), 262_144);
    assert_eq!(ok(&input)["status"], "ok");
}

#[test]
fn a_double_encoded_object_is_unwrapped_once() {
    let inner = r#"{"question":"q","options":["a","b"]}"#;
    let input = serde_json::to_string(&format!("  {inner}  ")).unwrap();
    assert_eq!(prompt(&input)["question"], "q");
}

#[test]
fn options_as_strings_objects_mixed_or_stringified() {
    for options in [
        r#"["a","b"]"#,
        r#"[{"label":"a"},{"label":"b"}]"#,
        r#"["a",{"label":"b"}]"#,
        r#""[\"a\",\"b\"]""#,
        r#""[\"a\",{\"label\":\"b\"}]""#,
        r#""  [\"a\",\"b\"]  ""#,
    ] {
        let item = prompt(&format!(r#"{{"question":"q","options":{options}}}"#));
        assert_eq!(labels(&item), ["a", "b"], "{options}");
        assert_eq!(item["options"][0]["id"], "1");
        assert_eq!(item["options"][1]["id"], "2");
    }
}

#[test]
fn numbers_become_their_text() {
    let item = prompt(r#"{"question":"q","options":[1,2.5,{"label":3,"description":4}]}"#);
    assert_eq!(labels(&item), ["1", "2.5", "3"]);
    assert_eq!(item["options"][2]["description"], "4");
}

#[test]
fn label_and_description_aliases() {
    for key in ["label", "title", "name", "value", "text"] {
        let item = prompt(&format!(
            r#"{{"question":"q","options":[{{"{key}":"x"}},"y"]}}"#
        ));
        assert_eq!(item["options"][0]["label"], "x", "{key}");
    }
    for key in ["description", "desc", "detail", "hint"] {
        let item = prompt(&format!(
            r#"{{"question":"q","options":[{{"label":"x","{key}":"d"}},"y"]}}"#
        ));
        assert_eq!(item["options"][0]["description"], "d", "{key}");
    }
    // The first alias present wins; null counts as absent.
    let item = prompt(r#"{"question":"q","options":[{"label":null,"title":"t","name":"n"},"y"]}"#);
    assert_eq!(item["options"][0]["label"], "t");
}

#[test]
fn recommended_by_flag_or_by_label_suffix() {
    let item = prompt(
        r#"{"question":"q","options":[{"label":"a","recommended":true},"b (Recommended)","c (RECOMMENDED)","d",{"label":"e","recommended":false}]}"#,
    );
    let flags: Vec<bool> = item["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.get("recommended") == Some(&json!(true)))
        .collect();
    assert_eq!(flags, [true, true, true, false, false]);
    // The label is kept as written; `recommended` appears only when true.
    assert_eq!(item["options"][1]["label"], "b (Recommended)");
    assert!(item["options"][3].get("recommended").is_none());
}

#[test]
fn kinds_by_type_or_kind() {
    for (name, kind) in [
        ("text", "text"),
        ("select", "single_select"),
        ("choice", "single_select"),
        ("single_select", "single_select"),
        ("multi-select", "multi_select"),
        ("multi_select", "multi_select"),
        ("confirm", "confirm"),
        ("yesno", "confirm"),
        ("Multi-Select", "multi_select"),
    ] {
        let options = if kind.ends_with("select") {
            r#","options":["a","b"]"#
        } else {
            ""
        };
        for key in ["type", "kind"] {
            let item = prompt(&format!(r#"{{"question":"q","{key}":"{name}"{options}}}"#));
            assert_eq!(item["kind"], kind, "{key}={name}");
            assert_eq!(item.get("options").is_some(), kind.ends_with("select"));
        }
    }
}

#[test]
fn multi_select_flags() {
    for key in ["multiSelect", "multi_select", "multiple"] {
        let item = prompt(&format!(
            r#"{{"question":"q","options":["a","b"],"{key}":true}}"#
        ));
        assert_eq!(item["kind"], "multi_select", "{key}");
        let item = prompt(&format!(
            r#"{{"question":"q","options":["a","b"],"{key}":false}}"#
        ));
        assert_eq!(item["kind"], "single_select", "{key}");
    }
    // A select type with multiSelect true is a multi select.
    assert_eq!(
        prompt(r#"{"question":"q","type":"select","options":["a","b"],"multiple":true}"#)["kind"],
        "multi_select"
    );
}

#[test]
fn kind_defaults_by_position() {
    // A `questions` item with options is a single select, one without is text.
    let doc = ok(r#"{"questions":[{"question":"a","options":["x","y"]},{"question":"b"}]}"#);
    assert_eq!(doc["prompts"][0]["kind"], "single_select");
    assert_eq!(doc["prompts"][1]["kind"], "text");
    assert_eq!(
        doc["prompts"][1]["answer_format"],
        json!({"type":"string","min_length":1})
    );
}

#[test]
fn text_and_confirm_tolerate_an_empty_options_list() {
    let item = prompt(r#"{"prompt":"q","type":"text","options":[]}"#);
    assert!(item.get("options").is_none());
    assert_eq!(
        prompt(r#"{"prompt":"q","type":"confirm","options":"[]"}"#)["kind"],
        "confirm"
    );
}

#[test]
fn allow_other_aliases_and_defaults() {
    for key in ["allow_other", "allowOther", "custom"] {
        let item = prompt(&format!(
            r#"{{"question":"q","options":["a","b"],"{key}":true}}"#
        ));
        assert_eq!(item["answer_format"]["allow_other"], true, "{key}");
        assert!(
            item["answer_instructions"]
                .as_str()
                .unwrap()
                .starts_with("Reply with the option number (1-2)")
        );
        assert!(
            item["answer_instructions"]
                .as_str()
                .unwrap()
                .contains("own words")
        );
    }
    // Off by default outside the Claude dialect; never echoed as false.
    let item = prompt(r#"{"question":"q","options":["a","b"]}"#);
    assert!(item["answer_format"].get("allow_other").is_none());
    assert_eq!(
        item["answer_instructions"],
        "Reply with the option number (1-2)."
    );
    // On by default for Claude-dialect items (header or multiSelect), unless turned off.
    let doc = ok(r#"{"questions":[
        {"question":"a","header":"H","options":["x","y"]},
        {"question":"b","multiSelect":false,"options":["x","y"]},
        {"question":"c","options":["x","y"]},
        {"question":"d","header":"H","options":["x","y"],"allow_other":false}]}"#);
    let other: Vec<bool> = (0..4)
        .map(|i| {
            doc["prompts"][i]["answer_format"]
                .get("allow_other")
                .is_some()
        })
        .collect();
    assert_eq!(other, [true, true, false, false]);
    // Only items of `questions` can be Claude-dialect items.
    let item = prompt(r#"{"question":"q","header":"H","multiSelect":true,"options":["a","b"]}"#);
    assert_eq!(item["kind"], "multi_select");
    assert!(item["answer_format"].get("allow_other").is_none());
    // Other belongs to select kinds only.
    let item = prompt(r#"{"prompt":"q","type":"text","allow_other":true}"#);
    assert_eq!(
        item["answer_format"],
        json!({"type":"string","min_length":1})
    );
}

#[test]
fn defaults_are_echoed_normalised() {
    let select = |d: &str| {
        prompt(&format!(
            r#"{{"question":"q","options":["Alpha","Beta","Gamma"],"default":{d}}}"#
        ))["default"]
            .clone()
    };
    assert_eq!(select(r#""Beta""#), "2");
    assert_eq!(select(r#""gamma""#), "3");
    assert_eq!(select("1"), "1");
    assert_eq!(select(r#""3""#), "3");
    assert_eq!(select(r#"["Beta"]"#), "2");
    assert!(
        prompt(r#"{"question":"q","options":["a","b"],"default":null}"#)
            .get("default")
            .is_none()
    );
    let multi = prompt(
        r#"{"questions":[{"question":"q","type":"multi_select","options":["a","b","c"],"default":["c",1,"c"]}]}"#,
    );
    assert_eq!(multi["default"], json!(["1", "3"]));
    let multi = prompt(
        r#"{"questions":[{"question":"q","type":"multi_select","options":["a","b","c"],"default":"b"}]}"#,
    );
    assert_eq!(multi["default"], json!(["2"]));
    for (given, echoed) in [
        ("\"yes\"", "yes"),
        ("\"No\"", "no"),
        ("true", "yes"),
        ("false", "no"),
        ("\"y\"", "yes"),
        ("\"FALSE\"", "no"),
    ] {
        let item = prompt(&format!(
            r#"{{"prompt":"q","type":"confirm","default":{given}}}"#
        ));
        assert_eq!(item["default"], echoed, "{given}");
    }
    assert_eq!(
        prompt(r#"{"prompt":"q","type":"text","default":"  hi  "}"#)["default"],
        "hi"
    );
}

#[test]
fn strings_are_trimmed_and_labels_fold_to_one_line() {
    let doc = ok(
        r#"{"questions":[{"question":"  Line one\nline two  ","header":" Da\nta  base ","context":"  para\n\npara  ","options":[{"label":"  a\n  b\tc  ","description":" keep\nlines "},"d"]}]}"#,
    );
    let item = &doc["prompt"];
    assert_eq!(item["question"], "Line one\nline two");
    assert_eq!(item["header"], "Da ta base");
    assert_eq!(item["context"], "para\n\npara");
    assert_eq!(item["options"][0]["label"], "a b c");
    assert_eq!(item["options"][0]["description"], "keep\nlines");
}

#[test]
fn no_unicode_normalisation() {
    // "é" precomposed and decomposed stay as given, and count as different labels.
    let item = prompt("{\"question\":\"caf\u{e9}?\",\"options\":[\"caf\u{e9}\",\"cafe\u{301}\"]}");
    assert_eq!(labels(&item), ["caf\u{e9}", "cafe\u{301}"]);
}

#[test]
fn empty_null_and_blank_context_count_as_absent() {
    for context in ["null", "\"\"", "\"  \\n \""] {
        let item = prompt(&format!(
            r#"{{"question":"q","context":{context},"options":["a","b"]}}"#
        ));
        assert!(item.get("context").is_none(), "{context}");
    }
}

#[test]
fn unknown_keys_are_ignored() {
    let item = prompt(
        r#"{"question":"q","options":[{"label":"a","icon":"x"},"b"],"priority":9,"meta":{"x":[1]}}"#,
    );
    assert_eq!(labels(&item), ["a", "b"]);
}

#[test]
fn one_question_context_wins_over_the_form_context() {
    let doc = ok(r#"{"context":"form","questions":[{"question":"q","context":"own"}]}"#);
    assert_eq!(doc["prompt"]["context"], "own");
    assert!(doc.get("context").is_none());
    let doc = ok(r#"{"context":"form","questions":[{"question":"q"}]}"#);
    assert_eq!(doc["prompt"]["context"], "form");
}

#[test]
fn several_questions_carry_ids_and_a_form_context() {
    let doc = ok(
        r#"{"title":"T","context":"form","questions":[{"question":"a"},{"id":"mine","question":"b","context":"own"},{"question":"c"}]}"#,
    );
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "tool",
            "version",
            "status",
            "title",
            "context",
            "prompts",
            "rendered_markdown"
        ]
    );
    let ids: Vec<&str> = doc["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["q1", "mine", "q3"]);
    assert_eq!(doc["prompts"][1]["context"], "own");
    assert!(doc["prompts"][0].get("context").is_none());
}

#[test]
fn a_single_question_echoes_its_id_only_if_given() {
    assert!(
        ok(r#"{"questions":[{"question":"a"}]}"#)["prompt"]
            .get("id")
            .is_none()
    );
    assert_eq!(
        ok(r#"{"questions":[{"id":"x","question":"a"}]}"#)["prompt"]["id"],
        "x"
    );
}

#[test]
fn prompt_keys_follow_the_documented_order() {
    let doc = ok(
        r#"{"title":"T","questions":[{"id":"i","header":"H","question":"q","context":"c","type":"multi_select","options":[{"label":"a","description":"d","recommended":true},"b"],"placeholder":"p","default":["a"],"required":false,"allow_other":true}]}"#,
    );
    let keys: Vec<&str> = doc["prompt"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "header",
            "question",
            "context",
            "kind",
            "options",
            "placeholder",
            "default",
            "required",
            "answer_instructions",
            "answer_format"
        ]
    );
    assert_eq!(doc["prompt"]["required"], false);
    let format_keys: Vec<&str> = doc["prompt"]["answer_format"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        format_keys,
        ["type", "items", "min_items", "max_items", "allow_other"]
    );
    assert_eq!(doc["prompt"]["answer_format"]["min_items"], 0);
    let option_keys: Vec<&str> = doc["prompt"]["options"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(option_keys, ["id", "label", "description", "recommended"]);
}

#[test]
fn answer_formats_by_kind() {
    assert_eq!(
        prompt(r#"{"question":"q","options":["a","b","c"]}"#)["answer_format"],
        json!({"type":"integer","min":1,"max":3})
    );
    assert_eq!(
        prompt(r#"{"question":"q","options":["a","b","c"],"multi_select":true}"#)["answer_format"],
        json!({"type":"array","items":{"type":"integer","min":1,"max":3},"min_items":1,"max_items":3})
    );
    assert_eq!(
        prompt(r#"{"prompt":"q","type":"text"}"#)["answer_format"],
        json!({"type":"string","min_length":1})
    );
    assert_eq!(
        prompt(r#"{"prompt":"q","type":"text","required":false}"#)["answer_format"],
        json!({"type":"string","min_length":0})
    );
    assert_eq!(
        prompt(r#"{"prompt":"q","type":"confirm"}"#)["answer_format"],
        json!({"type":"boolean"})
    );
}

#[test]
fn rendered_markdown_cannot_be_injected() {
    let doc = ok(
        r##"{"title":"# T","question":"**q** [x](http://e)","context":"# h\n- l\n```\n<b>x</b>","options":["<script>alert(1)</script>","`code` | ~s~ &amp;"]}"##,
    );
    let md = doc["rendered_markdown"].as_str().unwrap();
    for line in md.lines() {
        assert!(
            !line.starts_with("# ") && !line.starts_with("- l") && !line.starts_with("```"),
            "structure injected: {line:?}"
        );
    }
    assert!(!md.contains("<script>") && !md.contains("<b>") && !md.contains("[x](http"));
    assert!(md.contains(r"\<script\>") && md.contains(r"\`code\` \| \~s\~ \&amp;"));
    assert!(md.starts_with(r"## \# T"));
    // The JSON keeps the text as given.
    assert_eq!(
        doc["prompt"]["options"][0]["label"],
        "<script>alert(1)</script>"
    );
}

#[test]
fn user_ask_prompt_dialect() {
    let item = prompt(r#"{"prompt":"Name?","type":"text"}"#);
    assert_eq!(item["question"], "Name?");
    assert_eq!(item["kind"], "text");
    assert!(item.get("options").is_none());
}
