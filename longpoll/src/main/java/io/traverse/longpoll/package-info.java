/**
 * The {@code longpoll} connection module (robusttrav-longpolling paper): virtual connections whose
 * local leg is HTTP long-polling through a proxy. Not built yet, so this artifact registers no
 * module and the chain skips it.
 */
package io.traverse.longpoll;
