//! A server that hands the key back: every way a reply can try to get captop to show the key
//! it was sent.

use super::*;

/// The ways a server tries to get captop to show the key it was sent.
#[derive(Debug, Clone, Copy)]
pub(super) enum Echo {
    /// 401 with a JSON error naming the key and the whole header.
    Unauthorized,
    /// 500 with an HTML page holding the key in its title, text, a `<pre>` and a link.
    ServerErrorHtml,
    /// 503 with a JSON error holding the whole header.
    ServerErrorJson,
    /// 302 to a `Location` whose path, query and fragment hold the key.
    Redirect,
    /// 302 to a `Location` that does not parse, with the key inside.
    RedirectUnparsable,
    /// 429 whose `Retry-After` is the whole header (garbage), body likewise.
    RateLimited,
    /// 200 whose first route's name and slug hold the key.
    RouteNames,
    /// 200 whose `filled_pct` is the whole header, a string where a number belongs.
    MistypedField,
    /// The valid fixtures.
    Fine,
}

/// What a server playing `echo` answers to `req`, built from the Authorization header it got.
pub(super) fn echo_reply(echo: Echo, req: &RecordedRequest) -> Reply {
    let auth = req
        .header("authorization")
        .unwrap_or("no Authorization header")
        .to_owned();
    let bare = auth.strip_prefix("Bearer ").unwrap_or(&auth).to_owned();
    let fine = || {
        if req.path.ends_with("/utilization") {
            Reply::json(200, UTILIZATION)
        } else if req.path.ends_with("/capacity") {
            Reply::json(200, CAPACITY)
        } else {
            Reply::json(200, HEALTH)
        }
    };
    if req.path.ends_with("/health") {
        return fine();
    }
    match echo {
        Echo::Unauthorized => Reply::json(
            401,
            serde_json::json!({"error": format!("key {bare} is revoked; you sent `{auth}`")})
                .to_string(),
        ),
        Echo::ServerErrorHtml => Reply::html(
            500,
            format!(
                "<!doctype html><html><head><title>500 for {bare}</title></head><body>\
                 <h1>Internal Server Error</h1><p>Authorization: {auth}</p>\
                 <pre>api_key={bare}</pre><a href=\"/retry?key={bare}\">retry {bare}</a>\
                 </body></html>"
            ),
        ),
        Echo::ServerErrorJson => Reply::json(
            503,
            serde_json::json!({"error": format!("upstream refused {auth}")}).to_string(),
        ),
        Echo::Redirect => Response::new(302)
            .header(
                "Location",
                &format!("/v1/{bare}/capacity?key={bare}#{bare}"),
            )
            .reply(),
        Echo::RedirectUnparsable => Response::new(302)
            .header("Location", &format!("http://[{bare}]:x/{bare}"))
            .reply(),
        Echo::RateLimited => Response::new(429)
            .header("Retry-After", &auth)
            .header("Content-Type", "application/json")
            .body(Body::Bytes(
                serde_json::json!({"error": format!("slow down, {auth}")})
                    .to_string()
                    .into_bytes(),
            ))
            .reply(),
        Echo::RouteNames if req.path.ends_with("/capacity") => {
            let body = CAPACITY
                .replacen("\"Nigeria – Lagos\"", &format!("\"Echo {bare}\""), 1)
                .replacen("\"ng-lagos\"", &format!("\"{bare}\""), 1);
            assert!(body.contains(&bare), "fixture changed");
            Reply::json(200, body)
        }
        Echo::MistypedField if req.path.ends_with("/capacity") => {
            let body = CAPACITY.replacen(
                "\"filled_pct\": 25",
                &format!("\"filled_pct\": \"{auth}\""),
                1,
            );
            assert!(body.contains(&auth), "fixture changed");
            Reply::json(200, body)
        }
        Echo::RouteNames | Echo::MistypedField | Echo::Fine => fine(),
    }
}

/// Asserts that `server` was sent the key, so what it echoed really held it.
pub(super) fn assert_server_got_the_key(requests: &[RecordedRequest]) {
    let header = format!("Bearer {KEY}");
    assert!(
        requests
            .iter()
            .any(|r| r.header("authorization") == Some(header.as_str())),
        "the server never received the key ({} requests)",
        requests.len()
    );
}

/// `--once` as a table and as JSON, key in `CAPTOP_API_KEY`, against a server playing `echo`;
/// every run checked for the key and for `code` and `wanted`.
pub(super) async fn once_against(echo: Echo, code: i32, wanted: &[(&str, &str)]) {
    let server = FaultServer::start(move |req| echo_reply(echo, req)).await;
    let url = server.base_url("/v1");
    for format in ["table", "json"] {
        let label = format!("--once --format {format} against a server echoing the key ({echo:?})");
        Step::new(label, &["--once", "--format", format, "--base-url", &url])
            .env("CAPTOP_API_KEY", KEY)
            .expect(code, wanted)
            .run()
            .await;
    }
    assert_server_got_the_key(&server.requests());
}
