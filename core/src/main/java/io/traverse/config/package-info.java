/**
 * Configuration sources and value forms: system properties, {@code TRAVERSE_*} environment
 * variables and {@code traverse.properties}, read once into an immutable
 * {@link io.traverse.TraverseConfig} that validates every value.
 */
package io.traverse.config;
