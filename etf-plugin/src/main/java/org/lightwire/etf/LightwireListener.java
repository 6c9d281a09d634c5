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
import org.omg.GIOP.Version;
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
        router = new LaneRouter(lanes, config.serverSocketPerConnection());
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
            aal5Server = new org.lightwire.transport.channel.LinkServerDriver(link, config.engine(), router, null,
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
