package org.lightwire.etf;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.etf.FactoriesBase;
import org.jacorb.orb.etf.ProtocolAddressBase;
import org.omg.CORBA.INTERNAL;
import org.omg.ETF.Connection;
import org.omg.ETF.Listener;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.IOP.TaggedComponentSeqHolder;
import org.omg.IOP.TaggedProfileHolder;

/**
 * JacORB's entry point to the Lightwire transport: list it in {@code jacorb.transport.factories}
 * after {@code org.jacorb.orb.iiop.IIOPFactories}. It reads and checks every
 * {@code jacorb.lightwire.*} property when JacORB configures it, and makes the client
 * connections, the listener, profiles and addresses. Profiles are tagged
 * {@link LightwireProfile#TAG}; corbaloc addresses are {@code lw:host:port} or
 * {@code lw:1.2@host:port}.
 */
public final class LightwireFactories extends FactoriesBase
{
    private static final String CORBALOC_PREFIX = "lw:";
    private static final String ADDRESS_PREFIX = "lw://";

    private LightwireConfig config;
    private ClientRuntime client;
    /** The listeners JacORB made of this factory (one per IIOP listen endpoint), for reports. */
    private final java.util.List<LightwireListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void configure(final Configuration configuration) throws ConfigurationException
    {
        super.configure(configuration);
        config = LightwireConfig.from(configuration);
    }

    private synchronized ClientRuntime client()
    {
        if (client == null)
        {
            client = new ClientRuntime(config);
        }
        return client;
    }

    @Override
    public int profile_tag()
    {
        return LightwireProfile.TAG;
    }

    @Override
    protected Connection create_connection_internal()
    {
        return new LightwireClientConnection(client());
    }

    @Override
    protected Listener create_listener_internal()
    {
        final LightwireListener listener = new LightwireListener();
        listeners.add(listener);
        return listener;
    }

    /** @return the server listeners made of this factory, in the order JacORB made them (none in a client-only ORB). */
    public java.util.List<LightwireListener> listeners()
    {
        return java.util.Collections.unmodifiableList(listeners);
    }

    /**
     * @return the server-side counters of this ORB's Lightwire listeners, summed (see
     *     {@link LightwireListener#figures()}); empty for a client-only ORB.
     */
    public java.util.Map<String, Long> serverCounters()
    {
        final java.util.Map<String, Long> sum = new java.util.LinkedHashMap<>();
        for (final LightwireListener l : listeners)
        {
            l.figures().forEach((k, v) -> sum.merge(k, v, Long::sum));
        }
        return sum;
    }

    @Override
    protected ProtocolAddressBase create_address_internal()
    {
        return new LightwireAddress();
    }

    @Override
    public Profile demarshal_profile(final TaggedProfileHolder taggedProfile, final TaggedComponentSeqHolder components)
    {
        final LightwireProfile p = new LightwireProfile();
        configureResult(p);
        p.demarshal(taggedProfile, components);
        return p;
    }

    /**
     * @param corbaloc one address of a corbaloc URL, without the key: {@code lw:host:port} or
     *                 {@code lw:1.2@host:port}.
     * @return the profile, or null when the address is not Lightwire's (never throws for a
     *         foreign one, so later factories still get their turn).
     */
    @Override
    public Profile decode_corbaloc(final String corbaloc)
    {
        if (!corbaloc.toLowerCase(java.util.Locale.ROOT).startsWith(CORBALOC_PREFIX))
        {
            return null;
        }
        String rest = corbaloc.substring(CORBALOC_PREFIX.length());
        Version version = new Version((byte)1, (byte)2);
        final int at = rest.indexOf('@');
        if (at >= 0)
        {
            final String v = rest.substring(0, at);
            rest = rest.substring(at + 1);
            final int dot = v.indexOf('.');
            try
            {
                version = new Version(Byte.parseByte(v.substring(0, dot)), Byte.parseByte(v.substring(dot + 1)));
            }
            catch (final RuntimeException e)
            {
                throw CorbaExceptions.badAddress(corbaloc, "the version '" + v + "' is not of the form 1.2");
            }
            if (version.major != 1 || version.minor < 0 || version.minor > 2)
            {
                throw CorbaExceptions.badAddress(corbaloc, "GIOP " + v + " is not supported (1.0 to 1.2)");
            }
        }
        final LightwireAddress address = new LightwireAddress();
        if (!address.fromString(rest))
        {
            throw CorbaExceptions.badAddress(corbaloc, "expected lw:host:port with a port from 1 to 65535");
        }
        configureResult(address);
        final LightwireProfile p = new LightwireProfile(address, new byte[0], version);
        configureResult(p);
        return p;
    }

    @Override
    public int match_tag(final String address)
    {
        return address != null && address.toLowerCase(java.util.Locale.ROOT).startsWith(ADDRESS_PREFIX) ? 0 : -1;
    }

    /** @return the address of {@code lw://host:port}, or null for any other protocol. */
    @Override
    public ProtocolAddressBase create_protocol_address(final String address)
    {
        if (match_tag(address) < 0)
        {
            return null;
        }
        final LightwireAddress a = new LightwireAddress();
        if (!a.fromString(address.substring(ADDRESS_PREFIX.length())))
        {
            return null;
        }
        configureResult(a);
        return a;
    }

    /** @return exactly-once transport calls this ORB's client connections started. */
    public long callsStarted()
    {
        return client == null ? 0 : client.callsStarted.get();
    }

    /** @return one-way requests this ORB's client connections sent. */
    public long onewaysSent()
    {
        return client == null ? 0 : client.onewaysSent.get();
    }

    /** @return requests given the code-set context because their transport connection had not carried it. */
    public long codeSetContextsAdded()
    {
        return client == null ? 0 : client.codeSetContextsAdded.get();
    }

    /**
     * @return GIOP 1.2 Requests of 8 KiB up to {@code client.direct_request_max_bytes} that JacORB
     *     wrote straight into their transport connection's direct buffer.
     */
    public long directRequests()
    {
        return client == null ? 0 : client.directRequests.get();
    }

    /** @return requests written as arrays because direct memory ran out (-XX:MaxDirectMemorySize). */
    public long directRequestBuffersRefused()
    {
        return client == null ? 0 : client.directRequestBuffersRefused.get();
    }

    /**
     * @return one-way requests sent exactly-once to keep the server in step: each ends a window of
     *     one-ways (at most 64, at most {@code client.oneway_window_bytes}).
     */
    public long onewaysConfirmed()
    {
        return client == null ? 0 : client.onewaysConfirmed.get();
    }

    /** @return confirmations of one-way windows that waited for the previous one to be answered: the sender was ahead of the server. */
    public long onewayWindowWaits()
    {
        return client == null ? 0 : client.onewayWindowWaits.get();
    }

    /** @return calls that failed in the transport and were answered with a system exception. */
    public long callsFailed()
    {
        return client == null ? 0 : client.callsFailed.get();
    }

    /**
     * @return calls sent again on a new transport connection because the server had closed the
     *     first one as idle before the call reached it (its REJECT said so).
     */
    public long callsSentAgain()
    {
        return client == null ? 0 : client.callsSentAgain.get();
    }

    /** @return transport connections this ORB's client has open now (0 once the ORB has shut down). */
    public synchronized int openTransportConnections()
    {
        return client == null ? 0 : client.openTransportConnections();
    }

    /** @return how often the client's transport connections were all closed because the ORB's last connection closed. */
    public synchronized long transportClientCloses()
    {
        return client == null ? 0 : client.closes();
    }

    /**
     * @return the Lightwire factories of a JacORB ORB, or null when it was not configured with
     *         them.
     */
    public static LightwireFactories of(final org.omg.CORBA.ORB orb)
    {
        final Object f = ((org.jacorb.orb.ORB)orb).getTransportManager().getFactories(LightwireProfile.TAG);
        return f instanceof LightwireFactories ? (LightwireFactories)f : null;
    }

    LightwireConfig config()
    {
        if (config == null)
        {
            throw new INTERNAL("LightwireFactories used before JacORB configured it");
        }
        return config;
    }
}
