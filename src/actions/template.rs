//! A webhook's body template: a JSON value (a TOML table in the config) whose strings may name
//! an alert's fields as `{{field}}`.
//!
//! Substitution happens inside the parsed value, never in text that is parsed afterwards: a
//! string that is exactly one placeholder becomes the field's JSON value (a number stays a
//! number, a missing figure is `null`), and placeholders within a longer string are replaced
//! by the field's text. The body is then encoded by `serde_json`, so a route name full of
//! quotes, braces or `{{…}}` of its own is an escaped string and nothing else: it can neither
//! end the string, add a field nor be substituted again. Object keys are left as written. An
//! unknown field or a `{{` left open is refused when the config is read.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The fields an alert offers a template (and the default body's keys).
pub const FIELDS: &[&str] = &[
    "status",
    "id",
    "alertname",
    "event",
    "severity",
    "route",
    "name",
    "dial_code",
    "summary",
    "filled_pct",
    "remaining_minutes",
    "sells_out_at",
    "starts_at",
    "ends_at",
];

/// A checked template (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyTemplate(Value);

/// One piece of a template string.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Field(&'a str),
}

/// Why a template is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A placeholder opened and never closed, in this string.
    #[error("a {{{{ without }}}} in {0:?}")]
    Unclosed(String),
    /// A placeholder naming no field of [`FIELDS`].
    #[error("no field {{{{{0}}}}} (there are: {fields})", fields = FIELDS.join(", "))]
    UnknownField(String),
}

/// Splits `text` at its placeholders.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let (before, after) = rest.split_at(open);
        if !before.is_empty() {
            out.push(Piece::Text(before));
        }
        let after = after.get(2..).unwrap_or_default();
        let close = after
            .find("}}")
            .ok_or_else(|| TemplateError::Unclosed(text.to_owned()))?;
        let name = after.get(..close).unwrap_or_default().trim();
        if !FIELDS.contains(&name) {
            return Err(TemplateError::UnknownField(name.to_owned()));
        }
        out.push(Piece::Field(name));
        rest = after.get(close + 2..).unwrap_or_default();
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

fn check(value: &Value) -> Result<(), TemplateError> {
    match value {
        Value::String(text) => pieces(text).map(drop),
        Value::Array(items) => items.iter().try_for_each(check),
        Value::Object(map) => map.values().try_for_each(check),
        _ => Ok(()),
    }
}

/// A field's value as text within a longer string: strings as they are, `null` as nothing.
fn as_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

fn render_value(template: &Value, fields: &Map<String, Value>) -> Value {
    match template {
        Value::String(text) => match pieces(text).unwrap_or_default().as_slice() {
            [Piece::Field(name)] => fields.get(*name).cloned().unwrap_or(Value::Null),
            [] => Value::String(String::new()),
            many => Value::String(
                many.iter()
                    .map(|piece| match piece {
                        Piece::Text(text) => (*text).to_owned(),
                        Piece::Field(name) => as_text(fields.get(*name)),
                    })
                    .collect(),
            ),
        },
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| render_value(v, fields)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| (key.clone(), render_value(v, fields)))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl BodyTemplate {
    /// Checks `value` (see the module doc).
    pub fn new(value: Value) -> Result<BodyTemplate, TemplateError> {
        check(&value)?;
        Ok(BodyTemplate(value))
    }

    /// The body for an alert whose fields are `fields` (keys of [`FIELDS`]).
    pub fn render(&self, fields: &Map<String, Value>) -> Value {
        render_value(&self.0, fields)
    }
}

impl<'de> Deserialize<'de> for BodyTemplate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        BodyTemplate::new(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(name: &str) -> Map<String, Value> {
        let value = json!({
            "status": "firing",
            "name": name,
            "filled_pct": 96,
            "sells_out_at": null,
        });
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn whole_placeholders_keep_their_type_and_text_is_substituted_inside_strings() {
        let template = BodyTemplate::new(json!({
            "text": "{{ name }} is {{filled_pct}} % full{{sells_out_at}}",
            "pct": "{{filled_pct}}",
            "when": "{{sells_out_at}}",
            "tags": ["captop", "{{status}}"],
            "{{name}}": 1,
        }));
        let body = template.map(|t| t.render(&fields("Lagos")));
        assert_eq!(
            body,
            Ok(json!({
                "text": "Lagos is 96 % full",
                "pct": 96,
                "when": null,
                "tags": ["captop", "firing"],
                "{{name}}": 1,
            }))
        );
    }

    #[test]
    fn hostile_names_stay_one_escaped_string() {
        let hostile = "\"}, \"admin\": true, \"x\": {\"{{status}}";
        let template = BodyTemplate::new(json!({"text": "route {{name}}"}));
        let body = template.map(|t| t.render(&fields(hostile)));
        let encoded = body.as_ref().map(Value::to_string).unwrap_or_default();
        let back: Value = serde_json::from_str(&encoded).unwrap_or_default();
        assert_eq!(back, json!({"text": format!("route {hostile}")}));
        assert_eq!(back.as_object().map(Map::len), Some(1), "{encoded}");
    }

    #[test]
    fn unknown_fields_and_open_braces_are_refused() {
        let unknown = BodyTemplate::new(json!({"a": ["{{api_key}}"]}));
        let unknown = unknown.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(unknown.contains("no field {{api_key}}"), "{unknown}");
        let open = BodyTemplate::new(json!("{{name"));
        assert_eq!(
            open.err().map(|e| e.to_string()).as_deref(),
            Some(r#"a {{ without }} in "{{name""#)
        );
        assert!(BodyTemplate::new(json!({"n": 1, "b": true})).is_ok());
    }
}
