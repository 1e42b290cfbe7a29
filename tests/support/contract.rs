//! The service's contract, `schemas/openapi.json`: answers validated against its component
//! schemas, by the simulated service's tests and by the relay's alike.

use captop::demo::OPENAPI_JSON;
use serde_json::{Value, json};

/// The OpenAPI document, parsed once per test.
pub struct Contract {
    /// The whole document.
    pub doc: Value,
}

impl Contract {
    /// The published document.
    pub fn load() -> Self {
        Contract {
            doc: serde_json::from_str(OPENAPI_JSON).expect("schemas/openapi.json is JSON"),
        }
    }

    /// A validator for one component schema (`CapacityReport`, `Error`, …).
    pub fn validator(&self, component: &str) -> jsonschema::Validator {
        validator_over(&self.doc, component).expect("the component schema compiles")
    }

    /// Fails the test, listing every violation, unless `instance` is a valid `component`.
    pub fn check(&self, component: &str, instance: &Value) {
        let validator = self.validator(component);
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{component}: {errors:#?}\n{instance:#}");
    }
}

/// A validator for one component of `doc`, as the entry point of a schema carrying all of the
/// document's components (so `$ref`s between them resolve).
pub fn validator_over(
    doc: &Value,
    component: &str,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{component}"),
        "components": doc["components"],
    });
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
}
