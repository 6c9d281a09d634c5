package org.lightwire.etf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.BasicAdapter;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.dsi.ServerRequest;
import org.jacorb.orb.etf.ListenerBase;
import org.jacorb.orb.iiop.IIOPAddress;
import org.jacorb.orb.iiop.IIOPProfile;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.transport.channel.ConnectionReader;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.channel.ServerCall;
import org.lightwire.transport.channel.UdpServer;
import org.omg.CONV_FRAME.CodeSetComponentInfoHelper;
import org.omg.CORBA.INITIALIZE;
import org.omg.CORBA.NO_RESOURCES;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.IOP.TAG_CODE_SETS;

/**
 * A server's Lightwire endpoint: one UDP socket ({@link UdpServer}) on the Lightwire port, and
 * one ETF server connection per transport connection (that is, per concurrent client call).
 * With {@code jacorb.lightwire.server.socket_per_connection} (the default) each transport
 * connection has a socket of its own, and its ETF connection is delivered to JacORB when it
 * opens, so that JacORB's reader thread reads the socket itself; otherwise the ETF connection is
 * delivered when the connection's first request arrives on the listener's thread.
 *
 * <p>The port is {@code jacorb.lightwire.port}, by default the IIOP listener's port number (on
 * UDP), so a server needs no extra configuration. Because the IIOP port is only known once every
 * listener is configured, the socket is bound and the profile made in {@link #listen()}, which
 * JacORB calls before the first IOR is made.
 */
public final class LightwireListener extends ListenerBase
{
    final AtomicLong closeConnectionsDropped = new AtomicLong();
    final AtomicLong messagesWithoutCall = new AtomicLong();
    final AtomicLong protocolErrors = new AtomicLong();
    final AtomicLong orphanedCalls = new AtomicLong();
    final AtomicLong deliveryFailures = new AtomicLong();

    private final Map<String, LightwireServerConnection> connections = new ConcurrentHashMap<>();
    private LightwireConfig config;
    private int oaPort;
    private volatile UdpServer server;
    private volatile org.lightwire.transport.channel.LinkServerDriver aal5Server;

    @Override
    public void configure(final Configuration configuration) throws ConfigurationException
    {
        super.configure(configuration);
        config = LightwireConfig.from(configuration);
        oaPort = configuration.getAttributeAsInteger("OAPort", 0);
    }

    @Override
    public void listen()
    {
        if (config.aal5() != null)
        {
            listenOnAal5();
            return;
        }
        final IIOPAddress iiop = iiopAddress();
        int port = config.port();
        if (port < 0)
        {
            port = iiop != null ? iiop.getPort() : oaPort;
        }
        final InetSocketAddress bind;
        try
        {
            bind = config.listenAddress().isEmpty() ? new InetSocketAddress(port) :
                new InetSocketAddress(InetAddress.getByName(config.listenAddress()), port);
            server = new UdpServer(bind, config.engine(), config.serverLink(), new Handler(), null, config.maxMessageBytes(),
                config.serverIdleTimeoutNs(), new org.lightwire.transport.channel.RequestMemoryBudget(config.serverRequestMemoryBytes()));
        }
        catch (final IOException e)
        {
            throw (INITIALIZE)new INITIALIZE("Lightwire: cannot listen on UDP port " + port + ": " + e.getMessage() +
                " (set " + LightwireConfig.PORT + " to a free port)").initCause(e);
        }
        String host = config.host();
        if (host.isEmpty())
        {
            host = iiop != null ? iiop.getHostName() :
                !config.listenAddress().isEmpty() ? config.listenAddress() : IIOPAddress.getLocalHostAddress(logger);
        }
        final LightwireProfile p = new LightwireProfile(new LightwireAddress(host, server.localAddress().getPort()),
            new byte[0], new Version((byte)1, (byte)2));
        publish(p);
    }

    /** Serves the configured AAL5 PVC (one transport connection: one call at a time). */
    private void listenOnAal5()
    {
        final org.lightwire.atm.Aal5Config a = config.aal5();
        try
        {
            final org.lightwire.atm.Aal5Link link = org.lightwire.atm.Aal5Link.open(a);
            aal5Server = new org.lightwire.transport.channel.LinkServerDriver(
                new org.lightwire.transport.link.circuit.CircuitServerLink(link, "aal5 " + a.circuit()), config.engine(), new Handler(), null,
                config.maxMessageBytes(), "aal5:" + a.pvc()).start();
        }
        catch (final IOException e)
        {
            throw (INITIALIZE)new INITIALIZE("Lightwire: cannot serve AAL5 circuit " + a.circuit() + ": " + e.getMessage() +
                " (check " + LightwireConfig.AAL5_PREFIX + "circuit and the ATM interface)").initCause(e);
        }
        catch (final RuntimeException e)
        {
            throw (INITIALIZE)new INITIALIZE("Lightwire: cannot serve AAL5 circuit " + a.circuit() + ": " + e).initCause(e);
        }
        publish(new LightwireProfile(LightwireAddress.aal5(a.pvc().toString()), new byte[0], new Version((byte)1, (byte)2)));
    }

    private void publish(final LightwireProfile p)
    {
        p.getComponents().addComponent(TAG_CODE_SETS.value, codeSetComponent(orb));
        try
        {
            p.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("Lightwire: " + e.getMessage());
        }
        profile = p;
        super.listen();
    }

    /**
     * JacORB adds TAG_CODE_SETS only to IIOP profiles; an IOR with only a Lightwire or ROMIOP
     * profile needs its own.
     *
     * @return the encapsulated {@code CodeSetComponentInfo} of the ORB, the component's data.
     */
    public static byte[] codeSetComponent(final org.jacorb.orb.ORB orb)
    {
        final CDROutputStream out = new CDROutputStream(orb);
        try
        {
            out.beginEncapsulatedArray();
            CodeSetComponentInfoHelper.write(out, orb.getLocalCodeSetComponentInfo());
            return out.getBufferCopy();
        }
        finally
        {
            out.close();
        }
    }

    /** @return the address of this adapter's IIOP listener, or null when it has none. */
    private IIOPAddress iiopAddress()
    {
        if (!(up instanceof BasicAdapter))
        {
            return null;
        }
        for (final Profile p : ((BasicAdapter)up).getEndpointProfiles())
        {
            if (p instanceof IIOPProfile && ((IIOPProfile)p).getAddress() instanceof IIOPAddress)
            {
                return (IIOPAddress)((IIOPProfile)p).getAddress();
            }
        }
        return null;
    }

    /**
     * @return what this listener counted: its UDP endpoint's drops and set-up answers, the sums
     *     of its open connections' engine counters, the request memory budget, and its own
     *     counters; empty before {@link #listen()} or over AAL5.
     */
    public java.util.Map<String, Long> counters()
    {
        final java.util.Map<String, Long> c = new java.util.LinkedHashMap<>();
        final UdpServer s = server;
        if (s == null)
        {
            return c;
        }
        final org.lightwire.transport.link.udp.UdpServerEndpoint e = s.endpoint();
        c.put("connections", (long)s.connections());
        c.put("datagrams_received", e.datagramsReceived());
        c.put("malformed", e.malformed());
        c.put("unknown_id", e.unknownId());
        c.put("wrong_address", e.wrongAddress());
        c.put("stray_datagrams", e.strayDatagrams());
        c.put("connections_accepted", e.connectionsAccepted());
        c.put("connections_refused", e.connectionsRefused());
        c.put("refused_full", e.refusedFull());
        c.put("refused_address_limit", e.refusedAddressLimit());
        c.put("retries_sent", e.retriesSent());
        c.put("bad_cookies", e.badCookies());
        c.put("duplicate_connects", e.duplicateConnects());
        c.put("connections_replaced", e.connectionsReplaced());
        c.put("rejects_sent", e.rejectsSent());
        c.put("rejects_suppressed", e.rejectsSuppressed());
        c.put("idle_closed", s.idleClosed());
        c.put("zombies_removed", s.zombiesRemoved());
        c.put("stale", s.sum(org.lightwire.transport.engine.ConnectionCounters::stale));
        c.put("duplicates", s.sum(org.lightwire.transport.engine.ConnectionCounters::duplicates));
        c.put("invalid_packets", s.sum(org.lightwire.transport.engine.ConnectionCounters::invalidPackets));
        c.put("unexpected", s.sum(org.lightwire.transport.engine.ConnectionCounters::unexpected));
        c.put("request_memory_used", s.requestMemory().usedBytes());
        c.put("request_memory_peak", s.requestMemory().peakBytes());
        c.put("request_memory_limit", s.requestMemory().limitBytes());
        c.put("request_memory_refusals", s.requestMemory().refusals());
        c.put("protocol_errors", protocolErrors.get());
        c.put("delivery_failures", deliveryFailures.get());
        return c;
    }

    /** @return a copy of this endpoint's profile, or null before {@link #listen()}. */
    @Override
    public Profile endpoint()
    {
        return profile == null ? null : profile.copy();
    }

    /** @return the UDP port bound, or -1 before {@link #listen()}. */
    public int port()
    {
        final UdpServer s = server;
        return s == null ? -1 : s.localAddress().getPort();
    }

    @Override
    public void destroy()
    {
        final UdpServer s = server;
        if (s != null)
        {
            s.close();
        }
        final org.lightwire.transport.channel.LinkServerDriver a = aal5Server;
        if (a != null)
        {
            try
            {
                a.close();
            }
            catch (final IOException e)
            {
                // Closing the circuit: nothing left to tell anyone.
            }
        }
        for (final LightwireServerConnection c : connections.values())
        {
            c.onTransportClosed("the server ORB is shutting down");
        }
        connections.clear();
        super.destroy();
    }

    void forget(final LightwireServerConnection c)
    {
        connections.remove(c.transportName(), c);
    }

    /** Opens the ETF connection of transport connection {@code name}; {@code reader} is null when the listener's thread reads it. */
    private LightwireServerConnection open(final String name, final ConnectionReader reader)
    {
        final LightwireServerConnection c = new LightwireServerConnection(this, name, peerProfile(name), reader);
        try
        {
            c.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("Lightwire: " + e.getMessage());
        }
        c.markConnected();
        connections.put(name, c);
        try
        {
            deliverConnection(c);
        }
        catch (final RuntimeException e)
        {
            connections.remove(name, c);
            throw e;
        }
        return c;
    }

    /** @return a profile naming the peer of transport connection "/host:port#id". */
    private LightwireProfile peerProfile(final String name)
    {
        final int hash = name.indexOf('#');
        final String address = name.substring(name.indexOf('/') + 1, hash < 0 ? name.length() : hash);
        final LightwireAddress a = new LightwireAddress();
        if (!a.fromString(address))
        {
            a.fromString("unknown:1");
        }
        final LightwireProfile p = new LightwireProfile(a, new byte[0], new Version((byte)1, (byte)2));
        try
        {
            p.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("Lightwire: " + e.getMessage());
        }
        return p;
    }

    private final class Handler implements RequestHandler
    {
        @Override
        public void onRequest(final ServerCall call)
        {
            LightwireServerConnection c = connections.get(call.connection());
            if (c == null)
            {
                try
                {
                    c = open(call.connection(), null);
                }
                catch (final NO_RESOURCES e)
                {
                    refuse(call, e.getMessage());
                    return;
                }
                catch (final RuntimeException e)
                {
                    refuse(call, e.toString());
                    return;
                }
            }
            c.onRequest(call);
        }

        /** The ORB took no more connections: the call gets NO_RESOURCES rather than silence. */
        private void refuse(final ServerCall call, final String why)
        {
            deliveryFailures.incrementAndGet();
            if (!call.exactlyOnce())
            {
                return;
            }
            final ByteBuffer r = call.request();
            final byte[] m = new byte[r.remaining()];
            r.get(m);
            final long id = GiopMessage.isGiop(m, m.length) ? GiopMessage.requestId(m, m.length) : GiopMessage.UNKNOWN;
            if (GiopMessage.isGiop(m, m.length) && GiopMessage.type(m) == GiopMessage.REQUEST && id != GiopMessage.UNKNOWN &&
                GiopMessage.expectsGiopReply(m, m.length))
            {
                call.reply(ByteBuffer.wrap(SystemExceptionReply.build(GiopMessage.minor(m), id, "IDL:omg.org/CORBA/NO_RESOURCES:1.0",
                    CorbaExceptions.MINOR_ALL_BUSY, org.omg.CORBA.CompletionStatus._COMPLETED_NO,
                    ServerRequest.createExceptionDetailMessage("Lightwire: the server ORB refused a new connection: " + why).context_data)));
            }
            else
            {
                call.reply(ByteBuffer.allocate(0));
            }
        }

        @Override
        public boolean readsConnections()
        {
            return config.serverSocketPerConnection();
        }

        /**
         * JacORB gets the connection now, before its first request: its reader thread reads the
         * connection's own socket (see {@link LightwireServerConnection#read}).
         */
        @Override
        public void onConnectionOpened(final String connection, final ConnectionReader reader)
        {
            open(connection, reader);
        }

        @Override
        public void onConnectionClosed(final String connection, final String reason)
        {
            final LightwireServerConnection c = connections.remove(connection);
            if (c != null)
            {
                c.onTransportClosed(reason);
            }
        }
    }
}
