using System.Buffers;

namespace WebSocketCodec.Soak;

/// <summary>One planned message: its payload (in a rented buffer), where its fragments end, and the Pings sent between
/// fragments.</summary>
public sealed class SoakMessage
{
    private static readonly byte[]?[] NoPings = [];

    internal SoakMessage(long index, WebSocketOpcode opcode, byte[] buffer, int length, int[] fragmentEnds, byte[]?[]? pingsAfter, int splitsInsideCharacter)
    {
        Index = index;
        Opcode = opcode;
        Buffer = buffer;
        Length = length;
        FragmentEnds = fragmentEnds;
        PingsAfter = pingsAfter ?? NoPings;
        SplitsInsideCharacter = splitsInsideCharacter;
        foreach (byte[]? ping in PingsAfter)
        {
            Pings += ping is null ? 0 : 1;
        }
    }

    /// <summary>The message's index on its connection.</summary>
    public long Index { get; }

    /// <summary>Text or Binary.</summary>
    public WebSocketOpcode Opcode { get; }

    /// <summary>The rented buffer holding the payload (longer than <see cref="Length"/>).</summary>
    public byte[] Buffer { get; }

    /// <summary>The payload's length.</summary>
    public int Length { get; }

    /// <summary>The payload.</summary>
    public ReadOnlySpan<byte> Payload => Buffer.AsSpan(0, Length);

    /// <summary>The end offset of each fragment (one entry, <see cref="Length"/>, for an unfragmented message).</summary>
    public int[] FragmentEnds { get; }

    /// <summary>For each fragment but the last: the Ping's payload sent right after it, or null.</summary>
    public byte[]?[] PingsAfter { get; }

    /// <summary>The Pings sent between this message's fragments.</summary>
    public int Pings { get; }

    /// <summary>How many fragment cuts fall inside a UTF-8 character.</summary>
    public int SplitsInsideCharacter { get; }

    /// <summary>Whether the message is sent in more than one frame.</summary>
    public bool IsFragmented => FragmentEnds.Length > 1;

    /// <summary>The frames the client sends for it: fragments and Pings.</summary>
    public int FramesSent => FragmentEnds.Length + Pings;

    /// <summary>The sequence number of the last Ping sent inside this message, or -1 (set by the sender).</summary>
    public long LastPing { get; set; } = -1;

    /// <summary>Gives the payload buffer back.</summary>
    public void Return(ArrayPool<byte> pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        pool.Return(Buffer);
    }
}
