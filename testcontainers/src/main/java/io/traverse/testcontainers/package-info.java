/**
 * A Traverse hub in a container for integration tests ({@link io.traverse.testcontainers.TraverseHubContainer},
 * a Testcontainers {@code GenericContainer}): an application's test starts a real hub from the
 * locally loaded {@code traverse/hub} image and links its nodes to it (paper §3.3.1–3.3.2, the hub, run as
 * operators run it).
 */
package io.traverse.testcontainers;
