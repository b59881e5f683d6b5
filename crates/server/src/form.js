// The question widgets, shared by the answer page and the inbox page: one
// implementation of every kind (single and multi select with descriptions,
// recommended, Other and defaults; text; confirm). Every piece of text from
// a question goes in with textContent, never as HTML.
//
// AskForm.create(container, questions, prefix) renders `questions` (prompt
// items as the prompt document has them) into `container`; element ids start
// with `prefix` ("" on the answer page: q0, q0-o1, …). It returns the
// form's controls: collect() gives the page's submission, one entry per
// question.
var AskForm = (function () {
  "use strict";

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // The binary's limit on a note (answer::MAX_NOTE_CHARS).
  var NOTE_MAX = 1000;

  function create(container, questions, prefix) {
    function id(i) { return prefix + "q" + i; }
    function byId(suffix) { return document.getElementById(suffix); }
    // A question that starts filled (its default, or a single select's
    // recommended option) counts as answered only once the person has acted
    // on it: a click, a change or typing in its answer (not its note).
    // Submit sends what is shown either way.
    var prefilled = {};
    var confirmed = {};
    var indexOf = {};

    function optionRow(type, name, value, label, description, checked, recommended) {
      var row = el("div", "option");
      var input = el("input");
      input.type = type;
      input.name = name;
      input.value = value;
      input.id = name + "-" + value;
      input.checked = !!checked;
      var labelNode = el("label");
      labelNode.htmlFor = input.id;
      labelNode.appendChild(el("span", "label", label));
      if (recommended) labelNode.appendChild(el("span", "badge", "Recommended"));
      row.appendChild(input);
      row.appendChild(labelNode);
      if (description) {
        var desc = el("span", "desc", description);
        desc.id = input.id + "-desc";
        input.setAttribute("aria-describedby", desc.id);
        row.appendChild(desc);
      }
      return row;
    }

    function renderOptions(fieldset, q, name, index) {
      var multi = q.kind === "multi_select";
      var type = multi ? "checkbox" : "radio";
      var defaults = Array.isArray(q.default) ? q.default : (q.default ? [q.default] : []);
      var preselect = defaults.slice();
      if (!multi && preselect.length === 0) {
        for (var k = 0; k < q.options.length; k++) {
          if (q.options[k].recommended) { preselect = [q.options[k].id]; break; }
        }
      }
      if (preselect.length) prefilled[index] = true;
      q.options.forEach(function (o) {
        fieldset.appendChild(optionRow(type, name, "o" + o.id, o.label, o.description,
          preselect.indexOf(o.id) >= 0, o.recommended));
      });
      if (q.answer_format && q.answer_format.allow_other) {
        var row = optionRow(type, name, "other", "Other", null, false);
        var otherBox = row.querySelector("input");
        var field = el("input", "other-text");
        field.type = "text";
        field.id = name + "-other-text";
        field.setAttribute("aria-label", "Other: your own answer to question " + (index + 1));
        field.autocomplete = "off";
        field.placeholder = "Your own answer";
        field.addEventListener("input", function () {
          if (field.value.trim() !== "" && !otherBox.checked) {
            otherBox.checked = true;
            otherBox.dispatchEvent(new Event("change", { bubbles: true }));
          }
        });
        row.appendChild(field);
        fieldset.appendChild(row);
      }
    }

    // A remark the person adds to their answer, kept beside it (any kind).
    function noteField(name, index) {
      var row = el("div", "note");
      var field = el("textarea", "note-text");
      field.id = name + "-note";
      field.rows = 1;
      field.maxLength = NOTE_MAX;
      field.autocomplete = "off";
      field.placeholder = "Add a note to your answer (optional)";
      var label = el("label", "note-label", "Note");
      label.htmlFor = field.id;
      field.setAttribute("aria-label", "Note on your answer to question " + (index + 1) + " (optional)");
      row.appendChild(label);
      row.appendChild(field);
      return row;
    }

    function renderQuestion(q, i, n) {
      var name = id(i);
      var fieldset = el("fieldset", "question");
      fieldset.id = name;
      indexOf[name] = i;
      fieldset.setAttribute("aria-describedby", name + "-error");
      var legend = el("legend");
      legend.appendChild(el("span", "step", "Question " + (i + 1) + " of " + n));
      if (q.header) legend.appendChild(el("span", "tag", q.header));
      var text = el("span", "text", q.question);
      text.id = name + "-text";
      legend.appendChild(text);
      if (q.required === false) legend.appendChild(el("span", "optional", "(optional)"));
      fieldset.appendChild(legend);
      if (q.context) fieldset.appendChild(el("p", "qcontext", q.context));

      if (q.kind === "single_select" || q.kind === "multi_select") {
        renderOptions(fieldset, q, name, i);
      } else if (q.kind === "text") {
        var area = el("textarea");
        area.id = name + "-input";
        area.name = name;
        area.setAttribute("aria-labelledby", name + "-text");
        if (q.placeholder) area.placeholder = q.placeholder;
        if (typeof q.default === "string") area.value = q.default;
        if (area.value !== "") prefilled[i] = true;
        if (q.required !== false) area.setAttribute("aria-required", "true");
        fieldset.appendChild(area);
      } else {
        [["yes", "Yes"], ["no", "No"]].forEach(function (pair) {
          fieldset.appendChild(optionRow("radio", name, pair[0], pair[1], null, q.default === pair[0]));
        });
        if (q.default === "yes" || q.default === "no") prefilled[i] = true;
      }
      fieldset.appendChild(noteField(name, i));
      var error = el("p", "error");
      error.id = name + "-error";
      error.hidden = true;
      fieldset.appendChild(error);
      return fieldset;
    }

    function collectOne(q, i) {
      var answer = collectChoice(q, i);
      var note = byId(id(i) + "-note").value;
      if (note.trim() !== "") answer.note = note;
      return answer;
    }

    function collectChoice(q, i) {
      var name = id(i);
      if (q.kind === "text") return { text: byId(name + "-input").value };
      var checked = Array.prototype.slice.call(
        container.querySelectorAll('input[name="' + name + '"]:checked')
      ).map(function (input) { return input.value; });
      if (q.kind === "confirm") {
        return checked.length ? { confirm: checked[0] === "yes" } : {};
      }
      var answer = {
        optionIds: checked.filter(function (v) { return v !== "other"; })
          .map(function (v) { return v.slice(1); })
      };
      if (checked.indexOf("other") >= 0) answer.other = byId(name + "-other-text").value;
      return answer;
    }

    function isFilled(i) {
      var q = questions[i];
      var a = collectChoice(q, i);
      if (q.kind === "text") return a.text.trim() !== "";
      if (q.kind === "confirm") return a.confirm !== undefined;
      return a.optionIds.length > 0 || (a.other !== undefined && a.other.trim() !== "");
    }

    // For a person who left a question empty (the binary's own message is
    // written for a model: "ask again: Reply with…").
    function needsAnswer(i) {
      var q = questions[i];
      var other = q.answer_format && q.answer_format.allow_other ? ", or type your own answer" : "";
      var how = q.kind === "text" ? "Type your answer"
        : q.kind === "confirm" ? "Choose yes or no"
        : q.kind === "multi_select" ? "Choose at least one option" + other
        : "Choose an option" + other;
      return "This question needs an answer. " + how + ".";
    }

    // The checked radio of a group is where Tab lands, so focus starts there too.
    function focusQuestion(i) {
      var fieldset = byId(id(i));
      var target = fieldset.querySelector("input:checked") || fieldset.querySelector("input, textarea");
      if (target) target.focus();
    }

    questions.forEach(function (q, i) { container.appendChild(renderQuestion(q, i, questions.length)); });

    // The person's own act on a question's answer (clicking the pre-selected
    // option again confirms it; it fires no change, so the pages also count
    // on "click").
    function act(event) {
      var target = event.target;
      var answerControl = target.tagName === "INPUT"
        || (target.tagName === "TEXTAREA" && target.className !== "note-text");
      if (!answerControl) return;
      var fieldset = target.closest("fieldset.question");
      if (fieldset && indexOf.hasOwnProperty(fieldset.id)) confirmed[indexOf[fieldset.id]] = true;
    }
    ["click", "input", "change"].forEach(function (type) { container.addEventListener(type, act); });

    return {
      collect: function () { return questions.map(collectOne); },
      filledCount: function () {
        var done = 0;
        questions.forEach(function (q, i) {
          if (isFilled(i) && (!prefilled[i] || confirmed[i])) done++;
        });
        return done;
      },
      clearErrors: function () {
        questions.forEach(function (q, i) {
          byId(id(i)).removeAttribute("aria-invalid");
          byId(id(i) + "-error").hidden = true;
        });
      },
      // The refusal of question `index` (INVALID_REPLY at questions[index]):
      // shown beside it, in words for a person when it was left empty.
      showError: function (index, message) {
        var fieldset = byId(id(index));
        fieldset.setAttribute("aria-invalid", "true");
        var error = byId(id(index) + "-error");
        error.textContent = isFilled(index) ? message : needsAnswer(index);
        error.setAttribute("role", "alert");
        error.hidden = false;
        focusQuestion(index);
      },
      focusFirst: function () { if (questions.length) focusQuestion(0); }
    };
  }

  return { create: create, el: el };
})();
