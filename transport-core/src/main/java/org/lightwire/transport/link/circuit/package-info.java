/**
 * Connection identity over a point-to-point circuit (an ATM PVC): the circuit names its two
 * ends but not their incarnations, so a process restarted on either end would be taken for the
 * old one. The decorators here run the UDP link's set-up exchange (CONNECT, ACCEPT, REJECT of
 * {@link org.lightwire.transport.link.udp.SetupFlyweight}) over the circuit and put the 8-byte
 * connection id in front of every packet, as {@link org.lightwire.transport.link.udp.UdpPrefixFlyweight}
 * does on UDP: a packet of another incarnation is never taken for one of this one. The circuit
 * itself proves who its peer is, so no cookie is exchanged.
 */
package org.lightwire.transport.link.circuit;
