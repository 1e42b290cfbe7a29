//! Sample bodies shaped as `service-spec.md` §2 describes, consistent with its rules (so the
//! validation pass finds nothing in them).

/// A valid `GET /capacity` body with two routes and full totals.
pub const CAPACITY: &str = r#"{
  "generated_at": "2026-11-22T06:00:00Z",
  "unit_notes": "minutes are carriable call minutes",
  "routes": [
    {"route": "ng-lagos", "name": "Nigeria – Lagos", "dial_code": "+234",
     "capacity_minutes": {"total": 100000, "sold": 25000, "remaining": 75000},
     "ports": {"total": 40, "sold": 10, "available": 30}, "filled_pct": 25},
    {"route": "br-sao-paulo", "name": "Brazil – São Paulo", "dial_code": "+55",
     "capacity_minutes": {"total": 50000, "sold": 50000, "remaining": 0},
     "ports": {"total": 20, "sold": 20, "available": 0}, "filled_pct": 100}
  ],
  "totals": {"routes": 2,
             "capacity_minutes": {"total": 150000, "sold": 75000, "remaining": 75000},
             "ports": {"total": 60, "sold": 30, "available": 30},
             "filled_pct": 50}
}"#;

/// A valid `GET /utilization` body.
pub const UTILIZATION: &str = r#"{
  "generated_at": "2026-11-22T06:00:00Z",
  "date": "2026-11-22",
  "minutes_run_today": 1200,
  "daily_capacity_minutes": {"sold": 4800, "active": 3600, "paused": 1200},
  "utilization": {"utilized_minutes": 1200, "available_minutes": 3600, "utilization_pct": 25.0},
  "capacity_status": {"active_ports": 24, "paused_ports": 6, "provisioning_ports": 2}
}"#;

/// A valid `GET /health` body.
pub const HEALTH: &str = r#"{"status": "ok", "service": "capacity-metrics", "version": "1.0.0"}"#;

/// [`CAPACITY`] with `routes[0].ports` missing.
pub const CAPACITY_WITHOUT_PORTS: &str = r#"{
  "generated_at": "2026-11-22T06:00:00Z",
  "routes": [
    {"route": "ng-lagos", "name": "Lagos", "dial_code": "+234",
     "capacity_minutes": {"total": 10, "sold": 5, "remaining": 5}, "filled_pct": 50}
  ],
  "totals": {}
}"#;
