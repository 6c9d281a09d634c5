package org.lightwire.romiop.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lightwire.romiop.driver.DrivenEngine;
import org.lightwire.romiop.driver.GroupDriver;
import org.lightwire.romiop.engine.GroupClientEngine;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.GroupSender;
import org.lightwire.romiop.engine.MemberEngine;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * Tier 3 for the links: real UDP sockets on the loopback interface, multicast (group joined on
 * {@code lo}) and unicast fan-out. First the link alone (who receives a GROUP send, learned
 * unicast addresses), then three real member engines and a client engine, each on its own
 * {@link GroupDriver}, multicasting requests that every member must deliver in the same order.
 */
class UdpGroupLinkTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private static InetSocketAddress freshGroup()
    {
        // A group per test run, so parallel builds on one host do not hear each other.
        final ThreadLocalRandom r = ThreadLocalRandom.current();
        return new InetSocketAddress("239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255), r.nextInt(20000, 40000));
    }

    private static UdpGroupLink.Settings settings(final UdpGroupLink.Mode mode, final InetSocketAddress group, final int selfId,
        final boolean member) throws Exception
    {
        return new UdpGroupLink.Settings().mode(mode).group(group).selfId(selfId).joinGroup(member)
            .networkInterface(NetworkInterface.getByName("lo"))
            .unicastBind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** A KeepAlive names its sender and is the smallest packet: enough to see who got what. */
    private static ByteBuffer packetFrom(final int senderId, final long marker)
    {
        final ByteBuffer b = ByteBuffer.allocate(64);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.set(java.nio.ByteOrder.BIG_ENDIAN, senderId, 1, 1, marker, 0);
        return b;
    }

    /** The same packet typed as a Request: what a leader relays in a client's name. */
    private static ByteBuffer asRequest(final ByteBuffer packet)
    {
        packet.putShort(org.lightwire.romiop.protocol.PacketHeader_1_0.TYPE_OFFSET, (short)org.lightwire.romiop.protocol.PacketType.REQUEST.code());
        return packet;
    }

    private static int size(final ByteBuffer packet)
    {
        return new KeepAliveFlyweight().wrap(packet, 0).packetSize();
    }

    private static long marker(final byte[] packet)
    {
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(ByteBuffer.wrap(packet), 0);
        return k.lastOrderSeq();
    }

    /** @return a drain handler that adds each packet's marker to {@code markers}. */
    private static UdpGroupLink.PacketHandler markersInto(final List<Long> markers)
    {
        return (b, n) ->
        {
            final byte[] copy = new byte[n];
            b.get(0, copy);
            markers.add(marker(copy));
        };
    }

    private static byte[] receive(final GroupLink link) throws Exception
    {
        final ByteBuffer into = ByteBuffer.allocate(65536);
        final int n = link.receive(into, WAIT_NS);
        if (n < 0)
        {
            return null;
        }
        final byte[] b = new byte[n];
        into.get(0, b);
        return b;
    }

    private static boolean silent(final GroupLink link) throws Exception
    {
        return link.receive(ByteBuffer.allocate(65536), TimeUnit.MILLISECONDS.toNanos(200)) < 0;
    }

    /**
     * In a group whose members learn each other's addresses from traffic, a relayed Request (the
     * leader answering a NAK in a client's name) can reach a member before the leader's own
     * packets do: the leader's address must still be learned by the leader's id at its next packet
     * of its own, or this member's unicasts to the leader (NAKs, reports) have no destination.
     */
    @org.junit.jupiter.api.Test
    void aRelayThatArrivesFirstDoesNotKeepItsSendersAddressFromBeingLearned() throws Exception
    {
        final InetSocketAddress group = freshGroup();
        try (UdpGroupLink leader = UdpGroupLink.open(settings(UdpGroupLink.Mode.FANOUT, group, 1, true));
            UdpGroupLink member = UdpGroupLink.open(settings(UdpGroupLink.Mode.FANOUT, group, 3, true)))
        {
            leader.addMember(3, member.localAddress());
            final ByteBuffer relayed = asRequest(packetFrom(100, 13));
            leader.send(3, relayed, size(relayed));
            assertEquals(13, marker(receive(member)));
            final ByteBuffer own = packetFrom(1, 14);
            leader.send(3, own, size(own));
            assertEquals(14, marker(receive(member)));
            assertEquals(leader.localAddress(), member.peer(1), "the leader's own packet teaches its address");
            assertEquals(null, member.peer(100), "the relay's lesson is undone");
            final ByteBuffer nak = packetFrom(3, 15);
            member.send(1, nak, size(nak));
            assertEquals(15, marker(receive(leader)));
            assertEquals(0, member.counters().unknownDestination.get());
        }
    }

    @ParameterizedTest
    @EnumSource(UdpGroupLink.Mode.class)
    void groupSendReachesEveryOtherMemberOnceAndUnicastReachesTheLearnedSender(final UdpGroupLink.Mode mode) throws Exception
    {
        final InetSocketAddress group = freshGroup();
        final List<UdpGroupLink> members = new ArrayList<>();
        try (UdpGroupLink client = UdpGroupLink.open(settings(mode, group, 100, false)))
        {
            for (int id = 1; id <= 3; id++)
            {
                members.add(UdpGroupLink.open(settings(mode, group, id, true)));
            }
            for (int i = 0; i < 3; i++)
            {
                for (final UdpGroupLink m : members)
                {
                    m.addMember(i + 1, members.get(i).localAddress());
                }
                client.addMember(i + 1, members.get(i).localAddress());
            }
            final ByteBuffer fromClient = packetFrom(100, 7);
            client.send(GroupSender.GROUP, fromClient, size(fromClient));
            final byte[] expected = new byte[size(fromClient)];
            fromClient.get(0, expected);
            for (final UdpGroupLink m : members)
            {
                assertArrayEquals(expected, receive(m), "member " + m + " did not get the client's group packet");
                assertTrue(silent(m), "a second copy reached " + m);
            }
            // Member 2 multicasts: 1 and 3 get it, 2 drops its own echo (multicast loop), the client hears nothing.
            final ByteBuffer fromTwo = packetFrom(2, 9);
            members.get(1).send(GroupSender.GROUP, fromTwo, size(fromTwo));
            assertEquals(9, marker(receive(members.get(0))));
            assertEquals(9, marker(receive(members.get(2))));
            assertTrue(silent(members.get(1)));
            assertTrue(silent(client));
            // Member 3 learned the client's address from its packet and answers it by id.
            assertEquals(client.localAddress(), members.get(2).peer(100));
            final ByteBuffer answer = packetFrom(3, 11);
            members.get(2).send(100, answer, size(answer));
            assertEquals(11, marker(receive(client)));
            assertEquals(members.get(2).localAddress(), client.peer(3));
            // The leader (1) relays a packet of the client's (sender_id 100) to member 3, as it
            // does answering a NAK: member 3 keeps the client's own address.
            final ByteBuffer relayed = asRequest(packetFrom(100, 13));
            members.get(0).send(3, relayed, size(relayed));
            assertEquals(13, marker(receive(members.get(2))));
            assertEquals(client.localAddress(), members.get(2).peer(100), "a relay must not teach the client's address");
            assertEquals(1, members.get(2).counters().relaysNotLearned.get());
            // An id nobody has heard of is dropped and counted, not thrown.
            members.get(2).send(4242, answer, size(answer));
            assertEquals(1, members.get(2).counters().unknownDestination.get());
            if (mode == UdpGroupLink.Mode.MULTICAST)
            {
                assertEquals(1, members.get(1).counters().ownEchoes.get());
            }
        }
        finally
        {
            members.forEach(UdpGroupLink::close);
        }
    }

    @Test
    void wakeupEndsAWaitingReceiveAndNonRomiopDatagramsAreCounted() throws Exception
    {
        try (UdpGroupLink link = UdpGroupLink.open(settings(UdpGroupLink.Mode.FANOUT, null, 5, false));
             java.nio.channels.DatagramChannel raw = java.nio.channels.DatagramChannel.open())
        {
            link.wakeup();
            assertEquals(-1, link.receive(ByteBuffer.allocate(100), WAIT_NS));
            raw.send(ByteBuffer.wrap("not a ROMIOP packet".getBytes(StandardCharsets.US_ASCII)), link.localAddress());
            assertTrue(silent(link));
            assertEquals(1, link.counters().notRomiop.get());
        }
    }

    @Test
    void aPolledMemberTakesGroupAndUnicastDatagramsInDrainAndDropsItsOwnAndForeignOnes() throws Exception
    {
        final InetSocketAddress group = freshGroup();
        try (UdpGroupLink member = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 1, true).polled(true));
             UdpGroupLink client = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 100, false));
             java.nio.channels.DatagramChannel raw = java.nio.channels.DatagramChannel.open())
        {
            assertTrue(member.polled());
            assertThrows(IllegalStateException.class, () -> member.receive(ByteBuffer.allocate(100), 0));
            assertThrows(IllegalStateException.class, member::eventLoop);
            client.send(GroupSender.GROUP, packetFrom(100, 1), size(packetFrom(100, 1)));
            member.send(GroupSender.GROUP, packetFrom(1, 2), size(packetFrom(1, 2)));
            raw.send(ByteBuffer.wrap("not a ROMIOP packet".getBytes(StandardCharsets.US_ASCII)), member.localAddress());
            final List<Long> markers = new ArrayList<>();
            final UdpGroupLink.PacketHandler take = markersInto(markers);
            final long until = System.nanoTime() + WAIT_NS;
            while (member.counters().datagramsReceived.get() < 3 && System.nanoTime() - until < 0)
            {
                member.select(WAIT_NS);
                member.drain(take, 64);
            }
            assertEquals(List.of(1L), markers, "the client's multicast only");
            assertEquals(1, member.counters().ownEchoes.get());
            assertEquals(1, member.counters().notRomiop.get());
            // Learned from the multicast: unicast back to the client reaches it.
            assertEquals(client.localAddress(), member.peer(100));

            member.wakeupSelect();
            assertFalse(member.select(WAIT_NS), "woken: nothing to read");
            member.close();
            assertThrows(java.nio.channels.ClosedChannelException.class, () -> member.select(0));
            assertThrows(java.nio.channels.ClosedChannelException.class, () -> member.drain(take, 1));
        }
    }

    @Test
    void aFollowerThatDoesNotSelectRequestsSleepsThroughThemAndReadsThemWithTheNextMemberDatagram() throws Exception
    {
        final InetSocketAddress group = freshGroup();
        try (UdpGroupLink follower = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 2, true).polled(true));
             UdpGroupLink leader = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 1, true));
             UdpGroupLink client = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 100, false)))
        {
            final List<Long> markers = new ArrayList<>();
            final UdpGroupLink.PacketHandler take = markersInto(markers);
            assertTrue(follower.requestsSelected());
            follower.selectRequests(false);
            assertFalse(follower.requestsSelected());
            // Loopback multicast is delivered inside the sender's send: the request is queued now.
            client.send(GroupSender.GROUP, packetFrom(100, 1), size(packetFrom(100, 1)));
            assertFalse(follower.select(TimeUnit.MILLISECONDS.toNanos(300)), "a request alone does not end the wait");
            leader.send(GroupSender.GROUP, packetFrom(1, 2), size(packetFrom(1, 2)));
            assertTrue(follower.select(WAIT_NS), "the leader's multicast (group port + 1) does");
            assertEquals(2, follower.drain(take, 64));
            assertEquals(List.of(1L, 2L), markers, "the request, read first, then the leader's datagram");
            assertEquals(1, follower.counters().requestsReadUnselected.get());
            assertTrue(silent(client), "clients hear no member multicast");

            // A drain that stops at its maximum leaves the next select no wait: what is left may be unselected.
            markers.clear();
            client.send(GroupSender.GROUP, packetFrom(100, 3), size(packetFrom(100, 3)));
            client.send(GroupSender.GROUP, packetFrom(100, 4), size(packetFrom(100, 4)));
            leader.send(GroupSender.GROUP, packetFrom(1, 5), size(packetFrom(1, 5)));
            assertTrue(follower.select(WAIT_NS));
            assertEquals(2, follower.drain(take, 2));
            assertEquals(List.of(3L, 5L), markers);
            assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> follower.select(TimeUnit.MINUTES.toNanos(10))),
                "returns at once: request 4 waits on the unselected socket");
            assertEquals(1, follower.drain(take, 64));
            assertEquals(List.of(3L, 5L, 4L), markers);

            follower.selectRequests(true);
            client.send(GroupSender.GROUP, packetFrom(100, 6), size(packetFrom(100, 6)));
            assertTrue(follower.select(WAIT_NS), "selected again, a request ends the wait");
            assertEquals(1, follower.drain(take, 64));
            assertEquals(List.of(3L, 5L, 4L, 6L), markers);
            assertEquals(3, follower.counters().requestsReadUnselected.get(), "requests 1, 3 and 4; not 6");
        }
    }

    @Test
    void aDrainAsksOnlyTheSocketsTheLastSelectFoundReady() throws Exception
    {
        final InetSocketAddress group = freshGroup();
        try (UdpGroupLink member = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 1, true).polled(true));
             UdpGroupLink client = UdpGroupLink.open(settings(UdpGroupLink.Mode.MULTICAST, group, 100, false)))
        {
            final List<Long> markers = new ArrayList<>();
            final UdpGroupLink.PacketHandler take = markersInto(markers);
            assertFalse(member.select(TimeUnit.MILLISECONDS.toNanos(20)));
            client.send(GroupSender.GROUP, packetFrom(100, 1), size(packetFrom(100, 1)));
            assertEquals(0, member.drain(take, 64), "came after the select: left for the next one");
            assertTrue(member.select(WAIT_NS));
            assertEquals(1, member.drain(take, 64));
            client.send(GroupSender.GROUP, packetFrom(100, 2), size(packetFrom(100, 2)));
            assertEquals(1, member.drain(take, 64), "no select since the last drain: every socket is asked");
            assertEquals(List.of(1L, 2L), markers);
        }
    }

    @Test
    void aMemberRefusesAGroupPortThatLeavesNoPortForTheMembersMulticasts()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UdpGroupLink.open(
            settings(UdpGroupLink.Mode.MULTICAST, new InetSocketAddress("239.255.1.1", 65535), 1, true).polled(true)));
        assertTrue(e.getMessage().contains("group port + 1"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(UdpGroupLink.Mode.class)
    void threeMemberEnginesOnRealSocketsDeliverTheSameSequence(final UdpGroupLink.Mode mode) throws Exception
    {
        final InetSocketAddress group = freshGroup();
        final int[] memberIds = {1, 2, 3};
        final int requests = 500;
        final List<UdpGroupLink> links = new ArrayList<>();
        final List<GroupDriver> drivers = new ArrayList<>();
        final List<List<String>> logs = new ArrayList<>();
        try
        {
            for (final int id : memberIds)
            {
                links.add(UdpGroupLink.open(settings(mode, group, id, true)));
            }
            final UdpGroupLink clientLink = UdpGroupLink.open(settings(mode, group, 100, false));
            links.add(clientLink);
            for (final UdpGroupLink l : links)
            {
                for (int i = 0; i < memberIds.length; i++)
                {
                    l.addMember(memberIds[i], links.get(i).localAddress());
                }
            }
            for (int i = 0; i < memberIds.length; i++)
            {
                final List<String> log = Collections.synchronizedList(new ArrayList<>());
                logs.add(log);
                final MemberEngine e = new MemberEngine(new GroupConfig(memberIds[i], 1, memberIds), links.get(i),
                    (seq, sender, packet, requestId, payload, off, len) -> log.add(seq + ":" + sender + ":" + requestId));
                drivers.add(new GroupDriver("member-" + memberIds[i], links.get(i),
                    DrivenEngine.of(e::onPacket, e::onTimer, e::nextDeadlineNs), 65536).start());
            }
            final GroupClientEngine client = new GroupClientEngine(new GroupConfig(100, 1, memberIds), clientLink);
            final GroupDriver clientDriver = new GroupDriver("client", clientLink,
                DrivenEngine.of(client::onPacket, client::onTimer, client::nextDeadlineNs), 65536).start();
            drivers.add(clientDriver);
            final int[] sent = {0};
            final java.util.concurrent.CountDownLatch allSent = new java.util.concurrent.CountDownLatch(1);
            final ByteBuffer payload = ByteBuffer.wrap(new byte[100]);
            // Keeps the window full from the driver thread until every request is out.
            final java.util.function.LongConsumer[] pump = new java.util.function.LongConsumer[1];
            pump[0] = now ->
            {
                while (sent[0] < requests && client.canMulticast())
                {
                    client.multicast(sent[0]++, 1, payload, 0, 100, now);
                }
                if (sent[0] < requests)
                {
                    clientDriver.submit(pump[0]);
                }
                else
                {
                    allSent.countDown();
                }
            };
            clientDriver.submit(pump[0]);
            assertTrue(allSent.await(10, TimeUnit.SECONDS), "client could not send " + requests + " requests: sent " + sent[0] + ", client " + client.counters() + ", links " + links.stream().map(l -> l + " " + l.counters()).toList() + ", driver failures " + clientDriver.failures() + " " + clientDriver.lastFailure());
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (logs.stream().anyMatch(l -> l.size() < requests) && System.nanoTime() - end < 0)
            {
                Thread.sleep(20);
            }
            final String digest0 = digest(logs.get(0));
            for (int i = 0; i < memberIds.length; i++)
            {
                assertEquals(requests, logs.get(i).size(), "member " + memberIds[i] + " delivered; links " + links);
                assertEquals(digest0, digest(logs.get(i)), "member " + memberIds[i] + " delivered another sequence");
            }
            for (final GroupDriver d : drivers)
            {
                assertEquals(0, d.failures(), "driver failures: " + d.lastFailure());
            }
        }
        finally
        {
            drivers.forEach(GroupDriver::close);
            links.forEach(UdpGroupLink::close);
        }
    }

    private static String digest(final List<String> log) throws Exception
    {
        final MessageDigest md = MessageDigest.getInstance("SHA-256");
        synchronized (log)
        {
            for (final String s : log)
            {
                md.update(s.getBytes(StandardCharsets.US_ASCII));
                md.update((byte)'\n');
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
