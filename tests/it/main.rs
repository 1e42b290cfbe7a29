//! captop's integration tests, as one test binary: one module per concern, all sharing one
//! build of the test kit in `tests/support`.
//!
//! One binary rather than one per file: each test binary links the whole crate and its
//! dependencies, so seventeen of them spent most of a test build linking, and compiled the kit
//! seventeen times (under a `dead_code` allowance, since each used a different part of it).
//! Here the kit is compiled once and an unused helper is a warning. Test names read as
//! `module::test`, so `cargo test --test it secret_hygiene::` runs one concern.
//!
//! | module              | what it exercises                                                   |
//! |---------------------|---------------------------------------------------------------------|
//! | `actions_command`   | the dashboard's action command: argv only, timeout, few at once     |
//! | `alerting_alertmanager` | the relay's alerts fire, group, resolve in a real Alertmanager (`#[ignore]`d) |
//! | `alerting_receivers` | the relay's alerts at a webhook and a down-then-up Alertmanager     |
//! | `alerting_team`     | five dashboards behind one relay, a route crossing 95 %: one page    |
//! | `auth_cli`          | the binary's `auth login/status/logout`, key piped on stdin         |
//! | `auth_commands`     | `auth` and `config` subcommands in-process, kernel keyring          |
//! | `auth_tty`          | `auth login` at a real terminal                                     |
//! | `check_mode`        | `--format nagios` / `captop check`: exit codes, status, perfdata    |
//! | `cli_messages`      | one-line usage errors (UNKNOWN in check mode), hints, closed pipes   |
//! | `client`            | the API client against the scripted fault server                    |
//! | `completions_man`   | shell completions and the man page name every subcommand and flag   |
//! | `config_files`      | config fixtures, precedence                                         |
//! | `config_schema`     | `schemas/config.schema.json` in step with the config parser         |
//! | `demo_clock`        | `demo-server --speed` and `--sim-start`: generated_at on its clock  |
//! | `demo_service`      | the simulated service over HTTP                                     |
//! | `docs_links`        | the guide's links and anchors, its config reference, the README's commands |
//! | `docs_pictures`     | the guide's pictures are frames captop draws (`UPDATE_PICTURES=1`)  |
//! | `faults_dashboard`  | the fault matrix, live dashboard in a pty                           |
//! | `faults_once`       | the fault matrix, `--once`                                          |
//! | `forecasts_once`    | forecasts and the history over days from cron-like `--once` runs    |
//! | `history_promtool`  | the history's OpenMetrics export loaded by promtool into Prometheus   |
//! | `key_sources`       | where the API key comes from                                        |
//! | `keyring_backends`  | the real keyring stores (Secret Service ones are `#[ignore]`d)      |
//! | `max_body`          | the body cap as a setting, and its refusal naming the setting       |
//! | `once_cli`          | `--once` as a script runs it                                        |
//! | `poll_integration`  | the poller against the simulated service                            |
//! | `poll_pacing`       | pollers sharing a budget take turns, over HTTP in real time (70 s)  |
//! | `poll_schedule`     | the poller's schedule under a paused clock                          |
//! | `poll_sharing`      | turns, joining, leaving and crashing pollers under a paused clock   |
//! | `prometheus_mixin`  | contrib/prometheus: promtool, every expression in a real Prometheus |
//! | `properties`        | property tests of decoding and drawing                              |
//! | `relay_history`     | the relay's history over days, served to a reader with no state dir |
//! | `secret_hygiene`    | the key never shows anywhere, mode by mode                          |
//! | `serve_prometheus`  | `captop serve`'s /metrics: promtool, a real Prometheus (`#[ignore]`d) |
//! | `serve_relay`       | `captop serve` between the simulated service and real readers       |
//! | `serve_reload`      | `captop serve` rotating its certificate and tokens under load       |
//! | `serve_status_page` | `captop serve`'s status page, read and in Chromium (`#[ignore]`d)   |
//! | `several_services`  | two profiles, one down: `--once`, `check`, the dashboard in a pty   |
//! | `tui_pty`           | the dashboard end to end in a pty                                   |
//! | `ui_days_snapshots` | the detail view's chart over 24 h and 7 days, the "Trend" column    |
//! | `ui_forecast_snapshots` | the "Full in" column and the detail view's sales line           |
//! | `ui_several_snapshots` | the overview, a service's tab and the all view of two services    |
//! | `ui_snapshots`      | whole frames against `snapshots/`                                   |
//! | `ui_team_alerts`    | a relay's alerts in the header and the event pane (colour asserted)  |
//!
//! The Secret Service tests run with `scripts/secret-service-tests.sh`, which selects them by
//! module (`keyring_backends::`, `auth_commands::`, `auth_cli::`); the Prometheus ones with
//! `cargo test --test it serve_prometheus:: -- --include-ignored` and
//! `cargo test --test it prometheus_mixin:: -- --include-ignored`, the Alertmanager one with
//! `cargo test --test it alerting_alertmanager:: -- --include-ignored --nocapture`, and the
//! Chromium one with `cargo test --test it serve_status_page:: -- --include-ignored`
//! (`.ci/run`).

#[path = "../support/mod.rs"]
mod support;

mod actions_command;
mod alerting_alertmanager;
mod alerting_receivers;
mod alerting_team;
mod auth_cli;
mod auth_commands;
mod auth_tty;
mod check_mode;
mod cli_messages;
mod client;
mod completions_man;
mod config_files;
mod config_schema;
mod demo_clock;
mod demo_service;
mod docs_links;
mod docs_pictures;
mod faults_dashboard;
mod faults_once;
mod forecasts_once;
mod history_prometheus;
mod history_promtool;
mod key_sources;
mod keyring_backends;
mod max_body;
mod once_cli;
mod poll_integration;
mod poll_pacing;
mod poll_schedule;
mod poll_sharing;
mod prometheus_mixin;
mod properties;
mod relay_history;
mod secret_hygiene;
mod serve_prometheus;
mod serve_relay;
mod serve_reload;
mod serve_stale;
mod serve_status_page;
mod several_services;
mod tui_pty;
mod ui_clock_ticks;
mod ui_days_snapshots;
mod ui_forecast_snapshots;
mod ui_several_snapshots;
mod ui_snapshots;
mod ui_team_alerts;
