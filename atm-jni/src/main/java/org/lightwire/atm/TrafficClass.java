package org.lightwire.atm;

import java.util.Locale;

/** ATM service categories the AAL5 link offers, with their {@code <linux/atm.h>} codes. */
public enum TrafficClass
{
    /** Unspecified bit rate: best effort, the peak cell rate is a ceiling (0 = line rate). */
    UBR(1),
    /** Constant bit rate: the peak cell rate is reserved and required. */
    CBR(2);

    private final int code;

    TrafficClass(final int code)
    {
        this.code = code;
    }

    /** @return the {@code ATM_UBR}/{@code ATM_CBR} value of {@code struct atm_trafprm.traffic_class}. */
    public int code()
    {
        return code;
    }

    /**
     * @param text {@code ubr} or {@code cbr}, any case.
     * @throws IllegalArgumentException naming {@code key} and the accepted values.
     */
    public static TrafficClass parse(final String key, final String text)
    {
        try
        {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException(key + "=" + text + " is not a traffic class: use ubr or cbr", e);
        }
    }
}
