package org.lightwire.romiop.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.lightwire.romiop.engine.GroupSender;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;

/**
 * The UDP group link, in one of two {@link Mode}s (property {@code jacorb.lightwire.romiop.link}):
 *
 * <ul>
 *   <li>{@link Mode#MULTICAST} (default): {@code GROUP} is one datagram to the group's IP
 *       multicast address. A client's goes to the group port P (its requests, Cancels and reply
 *       ACKs), a member's to P + 1 (orders, KeepAlives, membership, relayed requests). Members
 *       receive both, each on a socket of its own bound to the group address and joined to the
 *       group on the configured interface; the <em>request socket</em> (P) apart is what lets a
 *       polled follower sleep through requests until their order wakes it
 *       ({@link #selectRequests}).</li>
 *   <li>{@link Mode#FANOUT}: {@code GROUP} is one datagram to each member's unicast address (the
 *       A1 paper's transport-level multicast by replication), for networks without multicast.
 *       Member addresses must be known ({@link #addMember}): the group profile lists them.</li>
 * </ul>
 *
 * <p>Every end has one unicast socket; everything is sent from it, so a datagram's source
 * address is where its sender receives unicast, and the receiver learns {@code sender_id ->
 * source} from every packet (see {@link GroupLink}). Receiving runs on a Netty NIO event loop
 * (one thread). By default the loop copies each datagram into a bounded queue
 * ({@code inboundQueuePackets}; a full queue drops and counts) and {@link #receive} takes from
 * it on a driver thread; with {@link #receiveOnLoop} the loop hands each datagram to the engine
 * itself, so the event loop is the driver ({@code org.lightwire.romiop.driver.EventLoopDriver}) and
 * no thread hand-off stands between the socket and the engine. Sending writes straight to the JDK
 * channel on the caller's thread, as transport-core's Netty link does.
 *
 * <p>With {@code IP_MULTICAST_LOOP} on (needed for several members on one host) a member also
 * receives its own multicasts; they are recognised by {@code sender_id} and dropped
 * ({@link GroupLinkCounters#ownEchoes}), as the engines expect {@code GROUP} to mean the others.
 *
 * <p>{@linkplain Settings#polled Polled}, the link has no event loop at all: its sockets are
 * registered with a {@link Selector}, and whichever thread drives the engine
 * ({@code org.lightwire.romiop.driver.PollingDriver}: the ORB's own reader, most of the time)
 * waits in {@link #select} and takes the datagrams with {@link #drain}. A datagram then reaches
 * JacORB on the thread that read it from the socket.
 */
public final class UdpGroupLink implements GroupLink
{
    /** How {@code GROUP} is reached. */
    public enum Mode
    {
        MULTICAST,
        FANOUT
    }

    private static final byte[] WAKEUP = new byte[0];
    private static final int SENDER_ID_OFFSET = PacketHeader_1_0.HEADER_LENGTH;

    private final Settings settings;
    private final DatagramChannel unicast;
    /** A member's socket on the group port: what clients multicast (null for clients and fan-out). */
    private final DatagramChannel groupSocket;
    /** A member's socket on the group port + 1: what members multicast (null for clients and fan-out). */
    private final DatagramChannel memberSocket;
    /** Where a member's {@code GROUP} sends go: the group address, port + 1 (null for clients and fan-out). */
    private final InetSocketAddress memberGroup;
    /** Polled member: the request socket's registration, whose interest {@link #selectRequests} sets. */
    private final SelectionKey requestKey;
    /** Poller only: whether the request socket's arrivals end a {@link #select}. */
    private boolean requestsSelected = true;
    /** Poller only: the last {@link #drain} stopped at its maximum, so datagrams may wait unselected. */
    private boolean drainedFull;
    /**
     * Poller only: per channel, whether {@link #drain} may find a datagram there: set for the
     * channels the last {@link #select} found ready (every channel when no select came between two
     * drains), cleared when a receive comes back empty. An unselected request socket is always tried.
     */
    private final boolean[] mayHaveData;
    /** Poller only: a {@link #select} ran since the last {@link #drain}. */
    private boolean selectedSinceDrain;
    /** Null when polled. */
    private final EventLoopGroup loop;
    /** Null unless polled. */
    private final Selector selector;
    /** Polled: the one buffer {@link #drain} receives into. */
    private final ByteBuffer pollBuffer;
    /** The unicast socket, then a member's request and member sockets; {@link #drain} reads them in this order. */
    private final DatagramChannel[] channels;
    private final ArrayBlockingQueue<Inbound> inbound;
    private final Map<Integer, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final Map<Integer, InetSocketAddress> members = new ConcurrentHashMap<>();
    /** Whose address each learned source is: a packet from it with another sender_id is a relay. */
    private final Map<InetSocketAddress, Integer> owners = new ConcurrentHashMap<>();
    private final GroupLinkCounters counters = new GroupLinkCounters();
    private final InetSocketAddress localAddress;
    private volatile boolean closed;
    /** With {@link #receiveOnLoop}: the loop's receive buffer and who takes each datagram. */
    private ByteBuffer loopBuffer;
    private volatile PacketHandler loopHandler;

    /** Takes a datagram on the event loop: {@code buffer} bytes {@code [0, length)}, valid during the call only. */
    @FunctionalInterface
    public interface PacketHandler
    {
        void onPacket(ByteBuffer buffer, int length);
    }

    /** What {@link #open} needs; build with the setters, all of which return this. */
    public static final class Settings
    {
        Mode mode = Mode.MULTICAST;
        int selfId;
        InetSocketAddress group;
        NetworkInterface networkInterface;
        InetSocketAddress unicastBind = new InetSocketAddress(0);
        boolean joinGroup;
        int ttl = 1;
        int inboundQueuePackets = 4096;
        int maxPacketBytes = 65507;
        int socketBufferBytes = 4 << 20;
        boolean polled;

        public Settings mode(final Mode m)
        {
            mode = m;
            return this;
        }

        /** This end's member or client id: own multicasts looped back carry it and are dropped. */
        public Settings selfId(final int id)
        {
            selfId = id;
            return this;
        }

        /** The group's multicast address and port (MULTICAST mode). */
        public Settings group(final InetSocketAddress g)
        {
            group = g;
            return this;
        }

        /** Interface multicasts leave by and the group is joined on; null lets the kernel choose. */
        public Settings networkInterface(final NetworkInterface nif)
        {
            networkInterface = nif;
            return this;
        }

        /** Where the unicast socket binds; port 0 for any free port. */
        public Settings unicastBind(final InetSocketAddress a)
        {
            unicastBind = a;
            return this;
        }

        /** True for members: receive what is multicast to the group. */
        public Settings joinGroup(final boolean join)
        {
            joinGroup = join;
            return this;
        }

        public Settings ttl(final int hops)
        {
            ttl = hops;
            return this;
        }

        public Settings inboundQueuePackets(final int packets)
        {
            inboundQueuePackets = packets;
            return this;
        }

        public Settings maxPacketBytes(final int bytes)
        {
            maxPacketBytes = bytes;
            return this;
        }

        public Settings socketBufferBytes(final int bytes)
        {
            socketBufferBytes = bytes;
            return this;
        }

        /** True: no event loop; the driver's threads {@link #select} and {@link #drain} themselves. */
        public Settings polled(final boolean p)
        {
            polled = p;
            return this;
        }
    }

    private static final class Inbound
    {
        final byte[] bytes;

        Inbound(final byte[] bytes)
        {
            this.bytes = bytes;
        }
    }

    private UdpGroupLink(final Settings s) throws IOException
    {
        this.settings = s;
        if (s.mode == Mode.MULTICAST && (s.group == null || !s.group.getAddress().isMulticastAddress()))
        {
            throw new IllegalArgumentException("multicast link needs an IP multicast group address (224.0.0.0/4), got " + s.group);
        }
        this.inbound = new ArrayBlockingQueue<>(s.inboundQueuePackets);
        DatagramChannel u = null;
        DatagramChannel g = null;
        DatagramChannel m = null;
        final InetSocketAddress toMembers = s.mode == Mode.MULTICAST && s.joinGroup ? memberGroup(s.group) : null;
        try
        {
            u = DatagramChannel.open(StandardProtocolFamily.INET);
            u.setOption(StandardSocketOptions.SO_RCVBUF, s.socketBufferBytes);
            u.setOption(StandardSocketOptions.SO_SNDBUF, s.socketBufferBytes);
            if (s.mode == Mode.MULTICAST)
            {
                if (s.networkInterface != null)
                {
                    u.setOption(StandardSocketOptions.IP_MULTICAST_IF, s.networkInterface);
                }
                u.setOption(StandardSocketOptions.IP_MULTICAST_TTL, s.ttl);
                u.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            }
            u.bind(s.unicastBind);
            if (s.mode == Mode.MULTICAST && s.joinGroup)
            {
                final NetworkInterface nif = s.networkInterface != null ? s.networkInterface :
                    NetworkInterface.getByInetAddress(java.net.InetAddress.getLocalHost());
                if (nif == null)
                {
                    throw new IOException("no network interface to join " + s.group + " on: set jacorb.lightwire.romiop.interface");
                }
                g = joinedSocket(s, s.group, nif);
                m = joinedSocket(s, toMembers, nif);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            closeQuietly(u);
            closeQuietly(g);
            closeQuietly(m);
            throw e;
        }
        this.unicast = u;
        this.groupSocket = g;
        this.memberSocket = m;
        this.memberGroup = toMembers;
        this.channels = g == null ? new DatagramChannel[] {u} : new DatagramChannel[] {u, g, m};
        this.mayHaveData = new boolean[channels.length];
        final InetSocketAddress bound = (InetSocketAddress)u.getLocalAddress();
        this.localAddress = bound.getAddress().isAnyLocalAddress() ?
            new InetSocketAddress(s.unicastBind.getAddress().isAnyLocalAddress() ? java.net.InetAddress.getLoopbackAddress() :
                s.unicastBind.getAddress(), bound.getPort()) : bound;
        if (s.polled)
        {
            this.loop = null;
            this.pollBuffer = ByteBuffer.allocate(s.maxPacketBytes);
            Selector sel = null;
            SelectionKey requests = null;
            try
            {
                sel = Selector.open();
                for (int i = 0; i < channels.length; i++)
                {
                    channels[i].configureBlocking(false);
                    // The attachment is the channel's index, for select to mark it ready.
                    final SelectionKey key = channels[i].register(sel, SelectionKey.OP_READ, i);
                    if (channels[i] == g)
                    {
                        requests = key;
                    }
                }
            }
            catch (final IOException e)
            {
                if (sel != null)
                {
                    sel.close();
                }
                closeQuietly(u);
                closeQuietly(g);
                closeQuietly(m);
                throw e;
            }
            this.selector = sel;
            this.requestKey = requests;
            return;
        }
        this.selector = null;
        this.requestKey = null;
        this.pollBuffer = null;
        this.loop = new NioEventLoopGroup(1, new DefaultThreadFactory("romiop-link-" + s.selfId, true));
        for (final DatagramChannel c : channels)
        {
            register(c);
        }
    }

    /** The group address on the port after the group's: where members multicast to each other. */
    private static InetSocketAddress memberGroup(final InetSocketAddress group)
    {
        if (group.getPort() >= 65535)
        {
            throw new IllegalArgumentException("the group port " + group.getPort() + " leaves no port for the members' own multicasts " +
                "(group port + 1): choose a group port below 65535");
        }
        return new InetSocketAddress(group.getAddress(), group.getPort() + 1);
    }

    /** A socket bound to {@code at} (a group address and port) and joined to the group on {@code nif}. */
    private static DatagramChannel joinedSocket(final Settings s, final InetSocketAddress at, final NetworkInterface nif) throws IOException
    {
        final DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
        try
        {
            c.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            c.setOption(StandardSocketOptions.SO_RCVBUF, s.socketBufferBytes);
            // Bound to the group address, not the wildcard: on Linux a wildcard socket also gets
            // every other group joined on this host with the same port.
            c.bind(at);
            c.join(at.getAddress(), nif);
            return c;
        }
        catch (final IOException | RuntimeException e)
        {
            closeQuietly(c);
            throw e;
        }
    }

    /**
     * Opens the sockets and starts receiving.
     *
     * @throws IOException when a socket cannot be bound or the group cannot be joined; the
     *                     message names the address.
     */
    public static UdpGroupLink open(final Settings settings) throws IOException
    {
        return new UdpGroupLink(settings);
    }

    private void register(final DatagramChannel channel) throws IOException
    {
        channel.configureBlocking(false);
        final NioDatagramChannel netty = new NioDatagramChannel(channel);
        netty.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(settings.maxPacketBytes));
        netty.pipeline().addLast(new InboundHandler());
        try
        {
            loop.register(netty).sync();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while registering the group link's channel", e);
        }
    }

    private final class InboundHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            try
            {
                if (msg instanceof DatagramPacket)
                {
                    onDatagram((DatagramPacket)msg);
                }
            }
            finally
            {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            // An ICMP error or a transient socket fault: reported by counting, the loop goes on.
            counters.sendErrors.incrementAndGet();
        }
    }

    private void onDatagram(final DatagramPacket packet)
    {
        final ByteBuf content = packet.content();
        // At most maxPacketBytes: the channel's FixedRecvByteBufAllocator reads no more.
        final int length = content.readableBytes();
        final ByteBuffer b = loopBuffer();
        b.clear().limit(length);
        content.getBytes(content.readerIndex(), b);
        b.clear();
        if (!accept(b, length, packet.sender()))
        {
            return;
        }
        final PacketHandler handler = loopHandler;
        if (handler != null)
        {
            handler.onPacket(b, length);
            return;
        }
        final byte[] bytes = new byte[length];
        b.get(0, bytes);
        if (!inbound.offer(new Inbound(bytes)))
        {
            counters.inboundQueueFull.incrementAndGet();
        }
    }

    /** The event loop's receive buffer, made at its first datagram (the loop is its only user). */
    private ByteBuffer loopBuffer()
    {
        if (loopBuffer == null)
        {
            loopBuffer = ByteBuffer.allocate(settings.maxPacketBytes);
        }
        return loopBuffer;
    }

    /**
     * Counts a received datagram, drops it unless it is another end's ROMIOP packet, and learns
     * its sender's address.
     *
     * @return true when the packet is to go to the engine.
     */
    private boolean accept(final ByteBuffer b, final int length, final InetSocketAddress source)
    {
        counters.datagramsReceived.incrementAndGet();
        if (length < SENDER_ID_OFFSET + 4 || b.get(0) != PacketHeader_1_0.MAGIC[0] || b.get(1) != PacketHeader_1_0.MAGIC[1])
        {
            counters.notRomiop.incrementAndGet();
            return false;
        }
        final boolean little = (b.get(PacketHeader_1_0.FLAGS_OFFSET) & PacketHeader_1_0.FLAG_LITTLE_ENDIAN) != 0;
        final int raw = b.getInt(SENDER_ID_OFFSET);
        final int senderId = little ? Integer.reverseBytes(raw) : raw;
        if (senderId == settings.selfId)
        {
            counters.ownEchoes.incrementAndGet();
            return false;
        }
        if (source != null && !source.equals(peers.get(senderId)))
        {
            final Integer owner = owners.get(source);
            final int type = little ? Short.reverseBytes(b.getShort(PacketHeader_1_0.TYPE_OFFSET)) : b.getShort(PacketHeader_1_0.TYPE_OFFSET);
            if (owner != null && owner != senderId && type == PacketType.REQUEST.code())
            {
                // The leader resends a client's Request (answering a NAK) with the client's
                // sender_id from its own socket: learning from it would send this member's
                // replies for the client to the leader.
                counters.relaysNotLearned.incrementAndGet();
            }
            else
            {
                if (owner != null && owner != senderId && source.equals(peers.get(owner)))
                {
                    // Only Requests are relayed: a packet of another type comes from its sender's
                    // own socket. A relay that reached us before its sender spoke taught the
                    // relayed id this address: unlearned (its next packet of its own teaches it).
                    peers.remove(owner);
                }
                peers.put(senderId, source);
                owners.put(source, senderId);
            }
        }
        return true;
    }

    /**
     * Polled link: waits up to {@code timeoutNs} (0: not at all) for a datagram on a selected
     * socket, or for {@link #wakeupSelect}; not at all while the last {@link #drain} stopped at its
     * maximum (more may wait on a socket not selected). One thread at a time.
     *
     * @return true when a datagram may be waiting.
     * @throws ClosedChannelException when the link is closed.
     */
    public boolean select(final long timeoutNs) throws ClosedChannelException
    {
        final Selector sel = polledSelector();
        try
        {
            final int ready;
            if (timeoutNs <= 0 || drainedFull)
            {
                ready = sel.selectNow();
            }
            else
            {
                // Selector timeouts are in milliseconds; 0 would mean for ever.
                ready = sel.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs + 999_999)));
            }
            final boolean[] may = mayHaveData;
            java.util.Arrays.fill(may, false);
            for (final SelectionKey key : sel.selectedKeys())
            {
                may[(Integer)key.attachment()] = true;
            }
            selectedSinceDrain = true;
            sel.selectedKeys().clear();
            return ready > 0;
        }
        catch (final ClosedSelectorException e)
        {
            throw new ClosedChannelException();
        }
        catch (final IOException e)
        {
            counters.sendErrors.incrementAndGet();
            return false;
        }
    }

    /**
     * Polled link: hands up to {@code max} waiting datagrams to {@code handler} on this thread,
     * without waiting: from each socket the last {@link #select} found ready, and from the
     * request socket while it is not selected (from every socket when no select came since the
     * last drain, or that drain stopped at its maximum), each read until it comes back empty; a
     * socket not ready is not asked, which saves a system call per socket and wake-up. For a
     * member the request socket is read before the member socket, so a request is in the engine
     * before an order that names it. One thread at a time (the one that selects).
     *
     * @return how many datagrams were read (ours or not).
     * @throws ClosedChannelException when the link is closed.
     */
    public int drain(final PacketHandler handler, final int max) throws ClosedChannelException
    {
        polledSelector();
        final boolean[] may = mayHaveData;
        for (int i = 0; i < channels.length; i++)
        {
            // Without a select since the last drain, or after a full one, anything may wait anywhere.
            may[i] |= !selectedSinceDrain || drainedFull || (channels[i] == groupSocket && !requestsSelected);
        }
        selectedSinceDrain = false;
        int read = 0;
        boolean more = true;
        while (more && read < max)
        {
            more = false;
            for (int i = 0; i < channels.length; i++)
            {
                if (read >= max)
                {
                    break;
                }
                if (!may[i])
                {
                    continue;
                }
                final DatagramChannel c = channels[i];
                final ByteBuffer b = pollBuffer;
                b.clear();
                final InetSocketAddress source;
                try
                {
                    source = (InetSocketAddress)c.receive(b);
                }
                catch (final ClosedChannelException e)
                {
                    throw e;
                }
                catch (final IOException e)
                {
                    // An ICMP error on the unicast socket: counted, as on the event loop.
                    counters.sendErrors.incrementAndGet();
                    continue;
                }
                if (source == null)
                {
                    may[i] = false;
                    continue;
                }
                more = true;
                read++;
                if (c == groupSocket && !requestsSelected)
                {
                    counters.requestsReadUnselected.incrementAndGet();
                }
                final int length = b.position();
                b.clear();
                if (accept(b, length, source))
                {
                    handler.onPacket(b, length);
                }
            }
        }
        drainedFull = read >= max;
        return read;
    }

    /**
     * Polled member: whether a client's datagram on the request socket ends a {@link #select}
     * (true at first). A follower that acts on a request only when the leader's order for it comes
     * turns it off: it then wakes for the order alone and reads the request, already waiting, in
     * the same {@link #drain}, one wake-up per call instead of two. Poller only; nothing for a
     * client, a fan-out link or a link with an event loop.
     */
    public void selectRequests(final boolean on)
    {
        if (requestKey != null && on != requestsSelected)
        {
            requestsSelected = on;
            try
            {
                requestKey.interestOps(on ? SelectionKey.OP_READ : 0);
            }
            catch (final CancelledKeyException e)
            {
                // Closed meanwhile: the next select or drain says so.
            }
        }
    }

    /** @return whether a datagram on the request socket ends a {@link #select} (see {@link #selectRequests}). */
    public boolean requestsSelected()
    {
        return requestKey == null || requestsSelected;
    }

    /** Polled link: makes a thread in {@link #select} (or its next call) return at once. */
    public void wakeupSelect()
    {
        if (selector != null)
        {
            selector.wakeup();
        }
    }

    /** @return true when the link has no event loop (see {@link Settings#polled}). */
    public boolean polled()
    {
        return selector != null;
    }

    private Selector polledSelector() throws ClosedChannelException
    {
        if (selector == null)
        {
            throw new IllegalStateException(this + " is not polled: its event loop receives");
        }
        if (closed)
        {
            throw new ClosedChannelException();
        }
        return selector;
    }

    @Override
    public void send(final int destinationId, final ByteBuffer packet, final int length)
    {
        if (destinationId != GroupSender.GROUP)
        {
            final InetSocketAddress to = peers.get(destinationId);
            if (to == null)
            {
                counters.unknownDestination.incrementAndGet();
                return;
            }
            sendTo(packet, length, to);
        }
        else if (settings.mode == Mode.MULTICAST)
        {
            sendTo(packet, length, memberGroup != null ? memberGroup : settings.group);
        }
        else
        {
            for (final Map.Entry<Integer, InetSocketAddress> m : members.entrySet())
            {
                if (m.getKey() != settings.selfId)
                {
                    sendTo(packet, length, m.getValue());
                }
            }
        }
    }

    private void sendTo(final ByteBuffer packet, final int length, final InetSocketAddress to)
    {
        final ByteBuffer view = packet.duplicate().order(ByteOrder.BIG_ENDIAN);
        view.limit(length).position(0);
        try
        {
            if (unicast.send(view, to) == 0)
            {
                counters.sendErrors.incrementAndGet();
            }
            else
            {
                counters.datagramsSent.incrementAndGet();
            }
        }
        catch (final IOException e)
        {
            counters.sendErrors.incrementAndGet();
        }
    }

    @Override
    public int receive(final ByteBuffer into, final long timeoutNs) throws IOException
    {
        if (selector != null)
        {
            throw new IllegalStateException(this + " is polled: use select and drain");
        }
        if (closed)
        {
            throw new ClosedChannelException();
        }
        final Inbound in;
        try
        {
            in = timeoutNs <= 0 ? inbound.poll() : inbound.poll(timeoutNs, TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while receiving", e);
        }
        if (in == null || in.bytes == WAKEUP)
        {
            if (closed)
            {
                throw new ClosedChannelException();
            }
            return -1;
        }
        into.clear();
        into.put(0, in.bytes);
        return in.bytes.length;
    }

    @Override
    public void wakeup()
    {
        inbound.offer(new Inbound(WAKEUP));
    }

    @Override
    public void addPeer(final int id, final InetSocketAddress address)
    {
        peers.put(id, address);
        owners.put(address, id);
    }

    @Override
    public InetSocketAddress peer(final int id)
    {
        return peers.get(id);
    }

    /** Adds a member for fan-out (and as a peer); harmless in MULTICAST mode. */
    public void addMember(final int id, final InetSocketAddress address)
    {
        members.put(id, address);
        peers.put(id, address);
        owners.put(address, id);
    }

    public void removeMember(final int id)
    {
        members.remove(id);
    }

    public Mode mode()
    {
        return settings.mode;
    }

    /** @return the one event loop thread that receives this link's datagrams (for its tasks and timers). */
    public EventLoop eventLoop()
    {
        if (loop == null)
        {
            throw new IllegalStateException(this + " is polled: it has no event loop");
        }
        return loop.next();
    }

    /**
     * From now on every datagram goes to {@code handler} on the event loop itself instead of the
     * queue that {@link #receive} reads; call it once, before any datagram matters.
     */
    public void receiveOnLoop(final PacketHandler handler)
    {
        eventLoop();
        loopHandler = handler;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public GroupLinkCounters counters()
    {
        return counters;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (selector != null)
        {
            selector.wakeup();
            try
            {
                selector.close();
            }
            catch (final IOException e)
            {
                // Closing: nothing left to report to.
            }
        }
        else
        {
            wakeup();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2000);
        }
        closeQuietly(unicast);
        closeQuietly(groupSocket);
        closeQuietly(memberSocket);
    }

    private static void closeQuietly(final DatagramChannel c)
    {
        if (c != null)
        {
            try
            {
                c.close();
            }
            catch (final IOException e)
            {
                // Closing: nothing left to report to.
            }
        }
    }

    @Override
    public String toString()
    {
        return "UdpGroupLink{" + settings.mode + (selector != null ? ", polled" : "") + ", self=" + settings.selfId + ", local=" + localAddress +
            (settings.group != null ? ", group=" + settings.group : "") + '}';
    }
}
