namespace WebSocketCodec.Testing;

/// <summary>Checks payloads against <see cref="StreamPattern"/> in the order they arrive, from position 0. Used by one
/// thread at a time (a read loop); read its results once that thread is done.</summary>
public sealed class StreamPatternCheck
{
    /// <summary>Bytes received so far.</summary>
    public long Received { get; private set; }

    /// <summary>The stream position of the first wrong byte, or -1.</summary>
    public long FirstMismatch { get; private set; } = -1;

    /// <summary>Checks <paramref name="payload"/> as the stream's next bytes.</summary>
    public void Accept(ReadOnlySpan<byte> payload)
    {
        if (FirstMismatch < 0)
        {
            int at = StreamPattern.Mismatch(payload, Received);
            if (at >= 0)
            {
                FirstMismatch = Received + at;
            }
        }

        Received += payload.Length;
    }

    /// <summary>Fails unless exactly <paramref name="expected"/> bytes arrived, every one of them right.</summary>
    public void AssertExactly(long expected, string who)
    {
        Assert.True(FirstMismatch < 0, $"{who}: byte {FirstMismatch} of the stream is wrong ({Received} bytes received)");
        Assert.True(Received == expected, $"{who}: received {Received} bytes, expected exactly {expected}");
    }
}
