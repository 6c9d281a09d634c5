/**
 * In-memory networks with seeded faults, for tests of this module and of the modules above it.
 *
 * <ul>
 *   <li>{@link org.lightwire.transport.link.memory.SimulatedNetwork}: virtual time, one thread,
 *       for discrete-event simulation of two engines (STYLE.md's second test tier).</li>
 *   <li>{@link org.lightwire.transport.link.memory.MemoryLink}: a real-time
 *       {@link org.lightwire.transport.link.Link} pair for tests with real threads.</li>
 *   <li>{@link org.lightwire.transport.link.memory.Faults}: drop, duplicate, reorder and delay,
 *       per direction and per {@link org.lightwire.transport.link.memory.PacketKind}.</li>
 *   <li>{@link org.lightwire.transport.link.memory.SeedReporter}: prints the seeds of a failed
 *       test so that it replays exactly.</li>
 * </ul>
 *
 * <p>Both networks split one stream per direction from the seed and draw the same values for
 * every packet whatever its fate, so the same seed and faults give the n-th packet of a
 * direction the same fate on either network.
 */
package org.lightwire.transport.link.memory;
