//! The release artifacts (`scripts/dist`, DESIGN §12), each channel driven
//! from local files with its real tools: the archive, its completions and
//! man pages; npm (tests/dist/npm.rs); PyPI (tests/dist/pypi.rs); the MCP
//! bundle and the registry entry (tests/dist/mcpb.rs); install.sh, Homebrew,
//! binstall, pre-commit and the workflows (tests/dist/release.rs); one
//! release build and the crate for crates.io (tests/dist/build.rs).
//! The artifacts are built once per run (tests/common/dist.rs); with other
//! targets' binaries beside this machine's, each is packed too
//! (tests/dist/targets.rs, with fake foreign binaries).
//!
//! Linux only: the release job packs on Linux (x86_64), and these tests
//! check what it writes there (static ELF binaries, the Linux wheel tags);
//! scripts/dist and the packaging steps are bash and Python scripts run as
//! programs. Elsewhere (the release workflow's macOS and Windows runners)
//! this file is an empty test that says so.
//!
//! Slow (a release build, `scripts/dist` twice, every channel): the whole
//! file runs only with ASK_USER_SLOW=1 (or under CI), else every test in it
//! is counted as ignored (tests/common/harness.rs).

#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

#[cfg(target_os = "linux")]
#[path = "dist/archive.rs"]
mod archive;
#[cfg(target_os = "linux")]
#[path = "dist/build.rs"]
mod build;
mod common;
#[cfg(target_os = "linux")]
#[path = "dist/mcpb.rs"]
mod mcpb;
#[cfg(target_os = "linux")]
#[path = "dist/npm.rs"]
mod npm;
#[cfg(target_os = "linux")]
#[path = "dist/pypi.rs"]
mod pypi;
#[cfg(target_os = "linux")]
#[path = "dist/release.rs"]
mod release;
#[cfg(target_os = "linux")]
#[path = "dist/setup.rs"]
mod setup;
#[cfg(target_os = "linux")]
#[path = "dist/targets.rs"]
mod targets;

#[cfg(target_os = "linux")]
use {archive::*, build::*, mcpb::*, npm::*, pypi::*, release::*, setup::*, targets::*};

#[cfg(not(target_os = "linux"))]
fn main() {
    println!(
        "tests/dist: the release artifacts are packed and tested on Linux; nothing to run here"
    );
}

#[cfg(target_os = "linux")]
common::harness::main!(
    slow: two_runs_with_one_source_date_epoch_are_byte_identical,
    release_build_after_dist_compiles_nothing_whatever_source_date_epoch,
    cargo_package_builds_each_crate_with_its_sources_and_no_test_clients,
    fresh_clone_copies_no_git_file_of_the_checkout,
    the_archive_holds_the_binary_docs_completions_and_man_pages,
    sha256sums_lists_every_artifact_and_checks,
    every_manifest_carries_cargo_tomls_version,
    npm_installs_both_tarballs_offline_and_runs_as_ask_user_and_through_npx,
    npm_packages_pin_one_version_and_have_no_install_script,
    npm_launcher_execute_is_byte_identical_to_the_native_binary,
    npm_launcher_passes_exit_codes_0_1_2_124_and_130_through,
    npm_launcher_passes_sigterm_sigint_and_sighup_on_and_leaves_no_child,
    npm_launcher_dies_of_the_signal_that_killed_the_binary,
    npm_launcher_in_a_terminal_asks_and_is_answered_by_keys,
    npm_launcher_lets_ctrl_c_in_a_terminal_reach_the_binary_once,
    npm_launcher_serves_mcp_to_the_typescript_sdk,
    npm_main_package_alone_says_its_platform_package_is_missing,
    npm_launcher_from_the_source_tree_says_its_platform_package_is_missing,
    npm_launcher_on_an_unsupported_platform_names_it_and_the_other_ways,
    npm_launcher_runs_the_binary_ask_user_binary_names,
    npm_launcher_on_node_22_becomes_the_binary,
    npm_build_refuses_another_version_an_unknown_target_and_no_binary,
    setup_from_npxs_cache_writes_the_pinned_npx_form,
    setup_from_a_global_install_writes_the_native_binarys_path,
    pypi_wheel_holds_the_release_binary_under_truthful_tags,
    pypi_pip_installs_the_wheel_offline_and_the_python_sdk_drives_it,
    pypi_uvx_runs_the_wheel_offline_and_setup_writes_the_pinned_uvx_form,
    registry_pypi_entrys_uvx_command_serves_mcp,
    pypi_pipx_runs_the_wheel_offline,
    pypi_maturin_reads_pyproject_to_the_wheels_metadata,
    pypi_build_refuses_what_it_cannot_package,
    mcpb_manifest_passes_mcpb_validate,
    mcpb_bundle_unpacks_with_mcpb_and_serves_mcp_as_a_host_starts_it,
    mcpb_user_config_matches_what_mcp_accepts,
    mcpb_build_refuses_an_unknown_target_or_version,
    registry_server_json_validates_against_the_kept_schema,
    registry_check_jsonschema_refuses_a_bad_entry,
    registry_names_and_versions_match_every_channel,
    registry_build_refuses_missing_or_mismatched_checksums,
    install_sh_installs_a_working_binary_from_a_local_server,
    install_sh_installs_completions_and_man_pages_under_the_data_folder,
    install_sh_completions_and_man_pages_load_where_installed,
    install_sh_refuses_a_tampered_archive_and_installs_nothing,
    install_sh_refuses_a_release_without_sha256sums,
    install_sh_maps_each_platform_to_its_archive_and_names_an_unknown_one,
    install_sh_refuses_bad_arguments_with_a_usage_line,
    homebrew_formula_pins_the_archives_url_and_sha256,
    homebrew_build_covers_every_platform_sha256sums_lists_and_refuses_a_mismatch,
    binstall_metadata_expands_to_the_release_archive_and_its_binary,
    pre_commit_system_hook_fails_a_bad_prompt_naming_file_and_code,
    pre_commit_rust_hook_builds_ask_user_with_cargo_and_checks_prompts,
    action_yml_steps_install_a_release_and_annotate_bad_files,
    actionlint_passes_the_workflows_and_reads_the_action,
    check_jsonschema_accepts_the_action_and_the_workflows,
    shell_scripts_and_action_steps_are_shellcheck_clean,
    workflows_pin_actions_by_commit_and_build_the_platforms_installers_expect,
    dist_packs_each_built_target_fake_binaries_for_the_layout,
    dist_puts_each_fake_binary_unchanged_under_its_platforms_name,
    dist_sums_formula_and_registry_cover_every_target,
    dist_refuses_a_binary_of_another_format_than_its_target,
);
