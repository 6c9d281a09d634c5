package org.lightwire.atm;

/**
 * The traffic parameters of one direction of an AAL5 circuit ({@code struct atm_trafprm}):
 * service category, peak cell rate and largest SDU. Checked when made, with the rules the Linux
 * kernel applies in {@code check_qos}/{@code adjust_tp} (net/atm/common.c), so a bad value fails
 * here with its name instead of as a bare EINVAL from {@code setsockopt(SO_ATMQOS)}.
 *
 * @param trafficClass UBR or CBR.
 * @param pcrCellsPerSecond peak cell rate; 0 for UBR means the line rate; CBR needs it &gt; 0.
 * @param maxSduBytes largest AAL5 SDU, {@value #MIN_SDU_BYTES} to {@value #MAX_AAL5_SDU_BYTES}.
 */
public record AtmQos(TrafficClass trafficClass, int pcrCellsPerSecond, int maxSduBytes)
{
    /** {@code ATM_MAX_AAL5_PDU}: the largest AAL5 SDU. */
    public static final int MAX_AAL5_SDU_BYTES = 65535;
    /** The smallest useful SDU: an omniTransport header and one byte. */
    public static final int MIN_SDU_BYTES = 9;
    /** {@code ATM_OC3_PCR}: 155.52 Mb/s SONET OC-3 in cells per second, the atmtcp link rate. */
    public static final int OC3_PCR = 353_207;
    /** Default largest SDU: the paper's 8 KiB, which avoided the driver's 32 KiB slump (section 5.2). */
    public static final int DEFAULT_MAX_SDU_BYTES = 8192;

    /** UBR at line rate with 8 KiB SDUs. */
    public static final AtmQos DEFAULT = new AtmQos(TrafficClass.UBR, 0, DEFAULT_MAX_SDU_BYTES);

    /** @throws IllegalArgumentException naming the parameter, its value and its range. */
    public AtmQos
    {
        check("qos.class", "qos.pcr", "qos.max_sdu", trafficClass, pcrCellsPerSecond, maxSduBytes);
    }

    static void check(final String classKey, final String pcrKey, final String sduKey,
        final TrafficClass trafficClass, final int pcr, final int maxSdu)
    {
        if (trafficClass == null)
        {
            throw new IllegalArgumentException(classKey + " is missing: use ubr or cbr");
        }
        if (pcr < 0)
        {
            throw new IllegalArgumentException(pcrKey + "=" + pcr + " is negative: give cells per second" +
                " (0 = line rate, UBR only; OC-3 is " + OC3_PCR + ")");
        }
        if (trafficClass == TrafficClass.CBR && pcr == 0)
        {
            throw new IllegalArgumentException(pcrKey + "=0 with " + classKey + "=cbr: CBR reserves a peak cell" +
                " rate, so give one in cells per second (1 to the link rate, " + OC3_PCR + " on OC-3)");
        }
        if (maxSdu < MIN_SDU_BYTES || maxSdu > MAX_AAL5_SDU_BYTES)
        {
            throw new IllegalArgumentException(sduKey + "=" + maxSdu + " is outside " + MIN_SDU_BYTES + ".." +
                MAX_AAL5_SDU_BYTES + " bytes (AAL5 carries at most " + MAX_AAL5_SDU_BYTES + ")");
        }
    }

    @Override
    public String toString()
    {
        return trafficClass.name().toLowerCase(java.util.Locale.ROOT) + ",pcr=" +
            (pcrCellsPerSecond == 0 ? "line" : Integer.toString(pcrCellsPerSecond)) + ",max_sdu=" + maxSduBytes;
    }
}
