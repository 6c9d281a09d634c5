package org.lightwire.atm;

import java.util.Objects;
import java.util.Properties;

/**
 * Where an {@link Aal5Link} connects and with what traffic contract: a PVC ({@code itf.vpi.vci})
 * or an SVC (an ATM address and SAP), and the QoS of each direction. Checked when built, with a
 * message naming the property and its range.
 *
 * <p>Properties, each read by {@link #fromProperties} under a caller's prefix (the JacORB plug-in
 * will use {@code jacorb.lightwire.aal5.}):
 * <table>
 * <caption>AAL5 link properties</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@value #CIRCUIT}</td><td>none</td><td>PVC {@code itf.vpi.vci}, e.g. {@code 0.0.100}; or:</td></tr>
 * <tr><td>{@value #ADDRESS}</td><td>none</td><td>SVC ATM address (text2atm syntax)</td></tr>
 * <tr><td>{@value #SAP}</td><td>empty</td><td>SVC SAP (text2sap syntax, e.g. {@code bhli:oui=...})</td></tr>
 * <tr><td>{@value #QOS_CLASS}</td><td>ubr</td><td>traffic class, ubr or cbr, both directions</td></tr>
 * <tr><td>{@value #QOS_PCR}</td><td>0</td><td>peak cell rate in cells/s (0: line rate, UBR only)</td></tr>
 * <tr><td>{@value #QOS_MAX_SDU}</td><td>8192</td><td>largest AAL5 SDU in bytes, 9..65535</td></tr>
 * </table>
 * {@code qos.tx.*} and {@code qos.rx.*} override a direction ({@code qos.rx.max_sdu=65535}).
 */
public final class Aal5Config
{
    /** PVC as {@code itf.vpi.vci}. */
    public static final String CIRCUIT = "circuit";
    /** SVC ATM address. */
    public static final String ADDRESS = "address";
    /** SVC service access point. */
    public static final String SAP = "sap";
    /** Traffic class: {@code ubr} (default) or {@code cbr}. */
    public static final String QOS_CLASS = "qos.class";
    /** Peak cell rate, cells per second; 0 (default) is the line rate for UBR. */
    public static final String QOS_PCR = "qos.pcr";
    /** Largest SDU in bytes; default {@value AtmQos#DEFAULT_MAX_SDU_BYTES}. */
    public static final String QOS_MAX_SDU = "qos.max_sdu";

    private final PvcAddress pvc;
    private final String svcAddress;
    private final String sap;
    private final AtmQos txQos;
    private final AtmQos rxQos;

    private Aal5Config(final Builder b)
    {
        if ((b.pvc == null) == (b.svcAddress == null))
        {
            throw new IllegalArgumentException(b.pvc == null ?
                "no circuit: give a PVC (" + CIRCUIT + "=itf.vpi.vci) or an SVC address (" + ADDRESS + ")" :
                "both a PVC (" + b.pvc + ") and an SVC address (" + b.svcAddress + ") given: choose one");
        }
        if (b.txQos.trafficClass() != b.rxQos.trafficClass())
        {
            // The kernel's check_qos refuses mixed classes with a bare EINVAL.
            throw new IllegalArgumentException("qos.tx.class=" + b.txQos.trafficClass() + " and qos.rx.class=" +
                b.rxQos.trafficClass() + " differ: Linux ATM needs one traffic class for both directions of a circuit");
        }
        this.pvc = b.pvc;
        this.svcAddress = b.svcAddress;
        this.sap = b.sap;
        this.txQos = b.txQos;
        this.rxQos = b.rxQos;
    }

    /** @return a builder with UBR at line rate and 8 KiB SDUs, and no circuit yet. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a PVC configuration with the default QoS. */
    public static Aal5Config pvc(final String itfVpiVci)
    {
        return builder().pvc(PvcAddress.parse(itfVpiVci)).build();
    }

    /**
     * Reads the keys above under {@code prefix}.
     *
     * @throws IllegalArgumentException naming the full key, its value and what it should be.
     */
    public static Aal5Config fromProperties(final Properties properties, final String prefix)
    {
        final Builder b = builder();
        final String circuit = properties.getProperty(prefix + CIRCUIT);
        if (circuit != null && !circuit.isBlank())
        {
            try
            {
                b.pvc(PvcAddress.parse(circuit));
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException(prefix + CIRCUIT + ": " + e.getMessage(), e);
            }
        }
        final String address = properties.getProperty(prefix + ADDRESS);
        if (address != null && !address.isBlank())
        {
            b.svc(address.trim());
        }
        b.sap(properties.getProperty(prefix + SAP, ""));
        b.txQos(direction(properties, prefix, "qos.tx.", AtmQos.DEFAULT));
        b.rxQos(direction(properties, prefix, "qos.rx.", AtmQos.DEFAULT));
        try
        {
            return b.build();
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException(prefix + ": " + e.getMessage(), e);
        }
    }

    private static AtmQos direction(final Properties p, final String prefix, final String dir, final AtmQos defaults)
    {
        final String classKey = key(p, prefix, dir, "class");
        final String pcrKey = key(p, prefix, dir, "pcr");
        final String sduKey = key(p, prefix, dir, "max_sdu");
        final TrafficClass trafficClass = TrafficClass.parse(classKey, p.getProperty(classKey, defaults.trafficClass().name()));
        final int pcr = integer(p, pcrKey, defaults.pcrCellsPerSecond());
        final int maxSdu = integer(p, sduKey, defaults.maxSduBytes());
        AtmQos.check(classKey, pcrKey, sduKey, trafficClass, pcr, maxSdu);
        return new AtmQos(trafficClass, pcr, maxSdu);
    }

    /** @return the direction's own key when set, else the shared {@code qos.<name>} key. */
    private static String key(final Properties p, final String prefix, final String dir, final String name)
    {
        final String own = prefix + dir + name;
        return p.getProperty(own) != null ? own : prefix + "qos." + name;
    }

    private static int integer(final Properties p, final String key, final int defaultValue)
    {
        final String text = p.getProperty(key);
        if (text == null || text.isBlank())
        {
            return defaultValue;
        }
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(key + "=" + text + " is not a whole number", e);
        }
    }

    /** @return the PVC, or null for an SVC. */
    public PvcAddress pvc()
    {
        return pvc;
    }

    /** @return the SVC address, or null for a PVC. */
    public String svcAddress()
    {
        return svcAddress;
    }

    /** @return the SVC SAP text, empty for none. */
    public String sap()
    {
        return sap;
    }

    public AtmQos txQos()
    {
        return txQos;
    }

    public AtmQos rxQos()
    {
        return rxQos;
    }

    /** @return the circuit for messages: {@code pvc 0.0.100} or {@code svc <address>}. */
    public String circuit()
    {
        return pvc != null ? "pvc " + pvc : "svc " + svcAddress;
    }

    /** @return the largest omniTransport packet one SDU carries both ways: the smaller max SDU. */
    public int maxPacketBytes()
    {
        return Math.min(txQos.maxSduBytes(), rxQos.maxSduBytes());
    }

    @Override
    public String toString()
    {
        return "Aal5Config{" + circuit() + (sap.isEmpty() ? "" : ", sap=" + sap) + ", tx=" + txQos + ", rx=" + rxQos + "}";
    }

    /** Builds an {@link Aal5Config}; {@link #build()} checks it. */
    public static final class Builder
    {
        private PvcAddress pvc;
        private String svcAddress;
        private String sap = "";
        private AtmQos txQos = AtmQos.DEFAULT;
        private AtmQos rxQos = AtmQos.DEFAULT;

        private Builder()
        {
        }

        public Builder pvc(final PvcAddress pvc)
        {
            this.pvc = Objects.requireNonNull(pvc, "pvc");
            return this;
        }

        public Builder svc(final String address)
        {
            this.svcAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        public Builder sap(final String sap)
        {
            this.sap = sap == null ? "" : sap.trim();
            return this;
        }

        /** Sets both directions. */
        public Builder qos(final AtmQos qos)
        {
            return txQos(qos).rxQos(qos);
        }

        public Builder txQos(final AtmQos qos)
        {
            this.txQos = Objects.requireNonNull(qos, "txQos");
            return this;
        }

        public Builder rxQos(final AtmQos qos)
        {
            this.rxQos = Objects.requireNonNull(qos, "rxQos");
            return this;
        }

        /** @throws IllegalArgumentException when the circuit is missing or twice given, or classes differ. */
        public Aal5Config build()
        {
            return new Aal5Config(this);
        }
    }
}
