/**
 * The long-poll latency harness: RobustTrav's measurement (papers/robusttrav-longpolling.txt
 * §5.1, Table 2) over long-poll sessions of real nodes to a real hub on loopback.
 */
package io.traverse.bench.longpoll;
