package org.lightwire.etf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.BasicAdapter;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.etf.ListenerBase;
import org.jacorb.orb.iiop.IIOPAddress;
import org.jacorb.orb.iiop.IIOPProfile;
import org.lightwire.etf.lane.Lane;
import org.lightwire.etf.lane.LaneCounters;
import org.lightwire.etf.lane.LanePool;
import org.lightwire.etf.lane.LaneRouter;
import org.lightwire.transport.channel.UdpServer;
import org.omg.CONV_FRAME.CodeSetComponentInfoHelper;
import org.omg.CORBA.INITIALIZE;
import org.omg.ETF.Profile;
import org.omg.IOP.TAG_CODE_SETS;

/**
 * A server's Lightwire endpoint: one UDP socket ({@link UdpServer}) on the Lightwire port, and a
 * few JacORB server connections, the lanes ({@link LanePool}), that carry the requests of every
 * transport connection, whatever their number: so Lightwire clients hold at most
 * {@code jacorb.lightwire.server.reader_threads} (+ 8 for rare code sets) of the reader threads
 * JacORB's server shares with IIOP ({@code jacorb.connection.server.max_receptor_threads}), and
 * opening transport connections, however many, cannot exhaust them. With
 * {@code jacorb.lightwire.server.socket_per_connection} (the default) each transport connection
 * has a socket of its own, which its lane's JacORB reader thread reads itself
 * ({@link LaneRouter}); otherwise the listener's thread hands each request to its lane.
 *
 * <p>The port is {@code jacorb.lightwire.port}, by default the IIOP listener's port number (on
 * UDP), so a server needs no extra configuration. Because the IIOP port is only known once every
 * listener is configured, the socket is bound and the profile made in {@link #listen()}, which
 * JacORB calls before the first IOR is made.
 */
public final class LightwireListener extends ListenerBase
{
    private final LaneCounters counters = new LaneCounters();
    private LanePool lanes;
    private LaneRouter router;
    /** Requests copied for a lane by another thread than its own (no socket per connection, AAL5): a budget of their own. */
    private org.lightwire.transport.channel.RequestMemoryBudget handOffMemory;
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
        lanes = new LanePool(config.serverReaderThreads(), this::deliverLane, () -> (LightwireProfile)profile.copy(), counters);
        handOffMemory = new org.lightwire.transport.channel.RequestMemoryBudget(config.serverRequestMemoryBytes());
        router = new LaneRouter(lanes, config.serverSocketPerConnection(), handOffMemory);
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
            server = new UdpServer(bind, config.engine(), config.serverLink(), router, null, config.maxMessageBytes(),
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
            new byte[0], config.giopVersion());
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
                new org.lightwire.transport.link.circuit.CircuitServerLink(link, "aal5 " + a.circuit()), config.engine(), router, null,
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
        publish(new LightwireProfile(LightwireAddress.aal5(a.pvc().toString()), new byte[0], config.giopVersion()));
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
     * @return what this listener counted, by name: its lanes' counters and, over UDP, its
     *     endpoint's drops and set-up answers, the sums of its open connections' engine counters
     *     and the request memory budget.
     */
    public java.util.Map<String, Long> figures()
    {
        final java.util.Map<String, Long> c = new java.util.LinkedHashMap<>();
        c.put("lanes_open", (long)(lanes == null ? 0 : lanes.laneCount()));
        c.put("lanes_opened", counters.lanesOpened());
        c.put("lanes_closed", counters.lanesClosed());
        c.put("lanes_solo", (long)(lanes == null ? 0 : lanes.soloLaneCount()));
        c.put("solo_starts", counters.soloStarts());
        c.put("solo_lanes_shared", counters.soloLanesShared());
        c.put("requests_handed_off", counters.requestsHandedOff());
        c.put("hand_offs_refused", counters.handOffsRefused());
        c.put("hand_off_memory_used", handOffMemory == null ? 0 : handOffMemory.usedBytes());
        c.put("hand_off_memory_peak", handOffMemory == null ? 0 : handOffMemory.peakBytes());
        c.put("protocol_errors", counters.protocolErrors());
        c.put("delivery_failures", counters.deliveryFailures());
        c.put("orphaned_calls", counters.orphanedCalls());
        c.put("lane_connections_refused", counters.connectionsRefused());
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
        if (lanes != null)
        {
            lanes.shutdown("the server ORB is shutting down");
        }
        super.destroy();
    }

    /** Hands a new lane to JacORB, configured and connected as an accepted connection is ({@code docs/notes/jacorb-etf.md} section 8). */
    private void deliverLane(final Lane lane)
    {
        try
        {
            lane.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("Lightwire: " + e.getMessage());
        }
        lane.markConnected();
        deliverConnection(lane);
    }

    /** @return what the lanes dropped, refused, moved and failed. */
    public LaneCounters counters()
    {
        return counters;
    }

    /** @return the lanes: their number, keys and connections (for tests and reports); null before JacORB configured the listener. */
    public LanePool lanes()
    {
        return lanes;
    }

    /** @return transport connections open now (0 before {@link #listen()}). */
    public int transportConnections()
    {
        final UdpServer s = server;
        return s == null ? 0 : s.connections();
    }
}
