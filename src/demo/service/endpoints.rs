//! The endpoints: the route table and one handler each. The metered two go through the
//! admission checks and answer with [`Simulation`](crate::demo::Simulation)'s figures at the
//! request's simulated instant; health, the OpenAPI document and the 404 fallback are fixed.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};

use super::request_log::{Arrival, log_request};
use super::{Shared, lock};
use crate::api::model::{ErrorBody, Health};

/// The OpenAPI 3.1 description of the service, as kept in the repository.
pub const OPENAPI_JSON: &str = include_str!("../../../schemas/openapi.json");

/// The `service` field of `/health`.
pub const SERVICE_NAME: &str = "captop-demo-metrics";

/// The API version the service reports.
pub const API_VERSION: &str = "1.0.0";

pub(super) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/capacity", get(capacity))
        .route("/v1/utilization", get(utilization))
        .route("/v1/health", get(health))
        .route("/v1/openapi.json", get(openapi))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            log_request,
        ))
        .with_state(shared)
}

async fn capacity(
    State(shared): State<Arc<Shared>>,
    Extension(arrival): Extension<Arrival>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = shared.refusal(&arrival, &headers) {
        return refused;
    }
    let at = shared.sim_time(arrival.at);
    let mut report = lock(&shared.simulation).capacity_at(at);
    super::fill_pins::apply(&mut report, &lock(&shared.pins));
    report.generated_at = shared.generated_at(&arrival, report.generated_at);
    Json(report).into_response()
}

async fn utilization(
    State(shared): State<Arc<Shared>>,
    Extension(arrival): Extension<Arrival>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = shared.refusal(&arrival, &headers) {
        return refused;
    }
    let at = shared.sim_time(arrival.at);
    let mut report = lock(&shared.simulation).utilization_at(at);
    report.generated_at = shared.generated_at(&arrival, report.generated_at);
    Json(report).into_response()
}

async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        service: SERVICE_NAME.to_owned(),
        version: API_VERSION.to_owned(),
    })
}

async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        OPENAPI_JSON,
    )
        .into_response()
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(ErrorBody {
            error: "no such endpoint: see /v1/openapi.json".to_owned(),
        }),
    )
        .into_response()
}
