use serde_json::json;

use super::*;

fn me() -> Claimant<'static> {
    Claimant {
        cluster: "prod",
        name: "genai",
        prior_name: None,
        token: None,
    }
}

fn strategy_object(cluster: &str, name: &str) -> Value {
    json!({"metadata": {"labels": {
        labels::MANAGED_BY: labels::MANAGED_BY_VALUE, labels::STRATEGY: name, labels::CLUSTER: cluster
    }}})
}

#[test]
fn an_absent_object_and_our_own_may_be_written() {
    assert!(check_write("NodePool gpu", None, &me(), false).is_ok());
    let ours = Owner::of_object(&strategy_object("prod", "genai"));
    assert!(check_write("NodePool gpu", Some(ours.clone()), &me(), false).is_ok());
    assert!(may_delete(&ours, &me()));
}

#[test]
fn another_strategys_object_is_neither_written_nor_deleted_and_the_error_names_it() {
    let theirs = Owner::of_object(&strategy_object("prod", "training"));
    let e = check_write("NodePool gpu", Some(theirs.clone()), &me(), false).unwrap_err();
    assert!(e.to_string().contains("eksgpu_node_strategy \"training\""), "{e}");
    assert!(e.how_to_hand_over().contains("removed {}"), "{}", e.how_to_hand_over());
    assert!(e.how_to_hand_over().contains("adopt = true"));
    assert!(!may_delete(&theirs, &me()));
}

#[test]
fn the_same_name_in_another_cluster_is_not_ours() {
    let other = Owner::of_object(&strategy_object("staging", "genai"));
    assert!(check_write("NodePool gpu", Some(other), &me(), false).is_err());
}

#[test]
fn a_rename_owns_what_the_old_name_made() {
    let old = Owner::of_object(&strategy_object("prod", "old"));
    let renaming = Claimant {
        prior_name: Some("old"),
        ..me()
    };
    assert!(check_write("NodePool gpu", Some(old.clone()), &renaming, false).is_ok());
    assert!(may_delete(&old, &renaming));
    assert!(!may_delete(&old, &me()));
}

#[test]
fn a_foreign_object_names_its_field_managers_and_may_be_adopted() {
    let o = json!({"metadata": {"labels": {"team": "ml"}, "managedFields": [
        {"manager": "kubectl-client-side-apply", "operation": "Update"},
        {"manager": "helm", "operation": "Update"},
        {"manager": "helm", "operation": "Update"},
    ]}});
    let owner = Owner::of_object(&o);
    let e = check_write("NodePool gpu", Some(owner.clone()), &me(), false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "NodePool gpu belongs to nothing this provider knows (no eksgpu.terraform.io label or tag; written by \
         field manager kubectl-client-side-apply, field manager helm)"
    );
    assert!(check_write("NodePool gpu", Some(owner.clone()), &me(), true).is_ok());
    assert!(!may_delete(&owner, &me()));
}

#[test]
fn tags_name_the_tool_that_made_a_node_group() {
    let t = BTreeMap::from([("alpha.eksctl.io/cluster-name".to_owned(), "prod".to_owned())]);
    assert_eq!(
        Owner::of_tags(&t).to_string(),
        "nothing this provider knows (no eksgpu.terraform.io label or tag; written by eksctl prod)"
    );
}

#[test]
fn other_resources_of_the_provider_are_named() {
    let pool = json!({"metadata": {"labels": {
        labels::MANAGED_BY: labels::MANAGED_BY_VALUE, labels::CLUSTER: "prod", SHARING_POOL_LABEL: "ts"
    }}});
    assert_eq!(
        Owner::of_object(&pool).to_string(),
        "eksgpu_sharing_pool \"ts\" of cluster \"prod\""
    );
    let old = json!({"metadata": {"labels": {labels::MANAGED_BY: labels::MANAGED_BY_VALUE}}});
    assert_eq!(Owner::of_object(&old), Owner::ProviderUnknown);
}

/// A strategy replaced with `create_before_destroy`: the new instance wrote the objects with its
/// token; the old instance's destroy leaves them, and says why (not someone else's).
#[test]
fn a_destroy_leaves_what_the_instance_replacing_it_wrote() {
    let mut l = BTreeMap::from([
        (labels::MANAGED_BY.to_owned(), labels::MANAGED_BY_VALUE.to_owned()),
        (labels::STRATEGY.to_owned(), "genai".to_owned()),
        (labels::CLUSTER.to_owned(), "prod".to_owned()),
        (labels::OWNER_TOKEN.to_owned(), "new".to_owned()),
    ]);
    let written_by_new = Owner::of_labels(&l, Vec::new());
    let old = Claimant {
        token: Some("old"),
        ..me()
    };
    let new = Claimant {
        token: Some("new"),
        ..me()
    };
    assert!(!may_delete(&written_by_new, &old));
    assert!(replaced_by_successor(&written_by_new, &old));
    assert!(may_delete(&written_by_new, &new));
    // The new instance may write over what the old one wrote.
    assert!(check_write("NodePool gpu", Some(written_by_new.clone()), &old, false).is_ok());
    // Objects and states from before tokens decide by name.
    assert!(may_delete(&written_by_new, &me()));
    l.remove(labels::OWNER_TOKEN);
    assert!(may_delete(&Owner::of_labels(&l, Vec::new()), &old));
}
