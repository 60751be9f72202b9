namespace WebSocketCodec.Fuzz.Model;

/// <summary>
/// A byte-at-a-time UTF-8 checker written from RFC 3629 §4's table (no overlong forms, no surrogates D800-DFFF, nothing
/// above U+10FFFF): it fails at the first byte that no valid text could continue with, so a stream cut anywhere is
/// judged only on what the bytes so far prove.
/// </summary>
public struct ModelUtf8
{
    private int _needed; // continuation bytes the current character still needs
    private byte _low; // the range the next continuation byte must be in
    private byte _high;

    /// <summary>Whether a byte no valid text could have there was seen.</summary>
    public bool Failed { get; private set; }

    /// <summary>Whether the bytes so far end inside a character.</summary>
    public readonly bool InsideCharacter => _needed > 0;

    /// <summary>Takes the next byte; false once the text is proven invalid.</summary>
    public bool Feed(byte value)
    {
        if (Failed)
        {
            return false;
        }

        if (_needed > 0)
        {
            if (value < _low || value > _high)
            {
                Failed = true;
                return false;
            }

            _needed--;
            (_low, _high) = (0x80, 0xBF);
            return true;
        }

        // UTF8-1 = %x00-7F; UTF8-2 = %xC2-DF UTF8-tail; UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
        // %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail ); UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) /
        // %xF1-F3 3( UTF8-tail ) / %xF4 %x80-8F 2( UTF8-tail ).
        (_needed, _low, _high) = value switch
        {
            <= 0x7F => (0, (byte)0x80, (byte)0xBF),
            >= 0xC2 and <= 0xDF => (1, (byte)0x80, (byte)0xBF),
            0xE0 => (2, (byte)0xA0, (byte)0xBF),
            0xED => (2, (byte)0x80, (byte)0x9F),
            >= 0xE1 and <= 0xEF => (2, (byte)0x80, (byte)0xBF),
            0xF0 => (3, (byte)0x90, (byte)0xBF),
            >= 0xF1 and <= 0xF3 => (3, (byte)0x80, (byte)0xBF),
            0xF4 => (3, (byte)0x80, (byte)0x8F),
            _ => (-1, (byte)0, (byte)0),
        };
        if (_needed < 0)
        {
            _needed = 0;
            Failed = true;
            return false;
        }

        return true;
    }
}
