//! Tests of the relay's reload: settling, all or nothing, the exported status.

use super::*;

const OLD: &str = "reader-token-old-0123456789";
const NEW: &str = "reader-token-new-0123456789";

fn bearer(token: &str) -> Vec<u8> {
    format!("Bearer {token}").into_bytes()
}

fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
}

fn write_pair(cert: &Path, key: &Path) -> Vec<u8> {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    std::fs::write(cert, made.cert.pem()).unwrap();
    write_private(key, &made.signing_key.serialize_pem());
    made.cert.der().to_vec()
}

#[test]
fn a_change_is_acted_upon_once_it_has_settled() {
    let stamp = |len| {
        Some(Stamp {
            len,
            modified: None,
            inode: 1,
        })
    };
    let mut watch = Watch {
        tried: vec![stamp(1)],
        seen: vec![stamp(1)],
    };
    assert!(!watch.settled_change(vec![stamp(1)]), "nothing changed");
    assert!(
        !watch.settled_change(vec![stamp(2)]),
        "changed, maybe still being written"
    );
    assert!(!watch.settled_change(vec![stamp(3)]), "still changing");
    assert!(watch.settled_change(vec![stamp(3)]), "the same twice: done");
    watch.tried = vec![stamp(3)];
    assert!(!watch.settled_change(vec![stamp(3)]), "tried already");
    assert!(!watch.settled_change(vec![None]), "gone: wait");
    assert!(
        watch.settled_change(vec![None]),
        "still gone: try, and fail"
    );
}

#[tokio::test]
async fn a_reload_applies_every_part_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let (tokens, cert, key) = (
        dir.path().join("tokens"),
        dir.path().join("tls.crt"),
        dir.path().join("tls.key"),
    );
    write_private(&tokens, &format!("{OLD}\n"));
    let first_der = write_pair(&cert, &key);
    let live_tokens: LiveTokens = Arc::new(ArcSwap::from_pointee(
        ReaderTokens::from_file(&tokens).unwrap(),
    ));
    let server_tls = tls::server_tls(&cert, &key).unwrap();
    let (status, status_rx) = watch::channel(ReloadStatus::started(Utc::now()));
    let mut reloader = Reloader {
        sources: Arc::new(Sources {
            token_file: Some(tokens.clone()),
            tls_files: Some((cert.clone(), key.clone())),
            settings: None,
        }),
        tokens: Some(Arc::clone(&live_tokens)),
        certificate: Some(Arc::clone(&server_tls.certificate)),
        status,
        settings: None,
        watch: Watch::default(),
    };
    let started = status_rx.borrow().last_success;

    write_private(&tokens, &format!("{NEW}\n"));
    let second_der = write_pair(&cert, &key);
    let fields = reloader.reload().await.unwrap();
    assert!(fields.contains(&("tokens", "1".to_owned())), "{fields:?}");
    assert!(live_tokens.load().admits(Some(&bearer(NEW))));
    assert!(!live_tokens.load().admits(Some(&bearer(OLD))));
    assert_ne!(first_der, second_der);
    assert_eq!(server_tls.certificate.end_entity_der(), second_der);
    let reloaded = *status_rx.borrow();
    assert!(reloaded.successful && reloaded.last_success >= started);

    // A good token file and a broken certificate: nothing changes, the status says so.
    write_private(&tokens, &format!("{OLD}\n"));
    std::fs::write(&cert, "-----BEGIN CERTIFICATE-----\nbroken\n").unwrap();
    let why = reloader.reload().await.unwrap_err().to_string();
    assert!(!why.contains(OLD) && !why.contains(NEW), "{why}");
    assert!(live_tokens.load().admits(Some(&bearer(NEW))));
    assert!(!live_tokens.load().admits(Some(&bearer(OLD))));
    assert_eq!(server_tls.certificate.end_entity_der(), second_der);
    assert_eq!(
        *status_rx.borrow(),
        ReloadStatus {
            successful: false,
            last_success: reloaded.last_success
        }
    );
}

#[test]
fn the_status_is_exported_as_prometheus_exports_its_own() {
    let at = DateTime::from_timestamp(1_790_000_000, 500_000_000).unwrap_or_default();
    let mut registry = Registry::default();
    ReloadStatus {
        successful: false,
        last_success: at,
    }
    .register(&mut registry);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(text.contains("# TYPE captop_config_last_reload_successful gauge\n"));
    assert!(
        text.contains("\ncaptop_config_last_reload_successful 0\n"),
        "{text}"
    );
    assert!(text.contains("# TYPE captop_config_last_reload_success_timestamp_seconds gauge\n"));
    assert!(
        text.contains("\ncaptop_config_last_reload_success_timestamp_seconds 1790000000.5\n"),
        "{text}"
    );
}

#[test]
fn settings_only_a_restart_applies_are_named() {
    let env = crate::config::Environment {
        var: &|_| None,
        default_config: None,
        stdout_is_tty: false,
    };
    let old = Settings::resolve_with(&crate::cli::GlobalArgs::default(), &env).unwrap();
    let mut new = old.clone();
    assert!(needing_restart(&old, &new).is_empty());
    new.interval += Duration::from_secs(1);
    assert_eq!(needing_restart(&old, &new), ["interval"]);
    // The thresholds and the alerts' timing apply at once; the receivers need a restart.
    new.warn_pct = 50;
    new.actions.keep_firing_for = Some(60.0);
    assert_eq!(needing_restart(&old, &new), ["interval"]);
    new.actions.command = Some(vec!["/bin/true".to_owned()]);
    assert_eq!(
        needing_restart(&old, &new),
        ["interval", "actions.receivers"]
    );
}
