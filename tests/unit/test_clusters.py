"""Which cluster a user's --cluster-id names: an id in any case or an exact name, each cluster once."""

from __future__ import annotations

from core.models.clusters import find_cluster, listed_clusters, same_cluster
from core.models.runai import Cluster

EAST = Cluster(uuid="5B77E6D6-7b53-5206-9a65-c6331d0e09cc", name="demo-east")
WEST = Cluster(uuid="f5fb5d40-6d44-52f8-95df-3a70921fdd64", name="demo-west")
TWIN = Cluster(uuid="9747d43c-9b98-564c-a0d5-96af34cdec06", name="demo-west")


def test_an_id_in_any_case_and_an_exact_name_name_the_cluster() -> None:
    assert same_cluster("5b77e6d6-7B53-5206-9a65-c6331d0e09cc ", EAST.uuid)
    assert find_cluster([EAST, WEST], "5b77e6d6-7b53-5206-9A65-c6331d0e09cc") == [EAST]
    assert find_cluster([EAST, WEST], "demo-east") == [EAST]
    assert find_cluster([EAST, WEST], "Demo-East") == []  # a name is matched exactly
    assert find_cluster([EAST, WEST], "nope") == []


def test_a_shared_name_names_every_cluster_that_has_it() -> None:
    assert find_cluster([EAST, WEST, TWIN], "demo-west") == [WEST, TWIN]


def test_a_list_that_repeats_a_cluster_names_it_once() -> None:
    repeated = [EAST] * 600 + [WEST]  # a server that sends one item again and again
    assert find_cluster(repeated, EAST.uuid or "") == [EAST]
    assert find_cluster(repeated, "demo-east") == [EAST]
    assert listed_clusters(repeated).count("demo-east") == 1


def test_the_listing_says_how_many_more_past_twenty() -> None:
    many = [Cluster(uuid=f"00000000-0000-0000-0000-{i:012d}", name=f"c{i}") for i in range(25)]
    text = listed_clusters(many)
    assert "c19 (" in text and "c20 (" not in text and text.endswith(", and 5 more")
