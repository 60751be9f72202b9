namespace WebSocketCodec.Soak;

/// <summary>What one transport's connections sent, received and verified (the node client reports the same fields in
/// its JSON). Each field has one writer while a connection runs; totals are added up after it ended.</summary>
public sealed class SoakCounts
{
    /// <summary>Connections opened.</summary>
    public long Connections;

    /// <summary>Frames the client sent: data frames (fragments) and Pings.</summary>
    public long FramesSent;

    /// <summary>Frames the client received and checked: echoed data frames and Pongs (Close frames not counted).</summary>
    public long FramesReceived;

    /// <summary>Messages sent.</summary>
    public long Messages;

    /// <summary>Messages echoed and found byte-exact, in order.</summary>
    public long MessagesVerified;

    /// <summary>Text messages sent.</summary>
    public long TextMessages;

    /// <summary>Payload bytes sent (data frames).</summary>
    public long BytesSent;

    /// <summary>Payload bytes received and checked (data frames).</summary>
    public long BytesReceived;

    /// <summary>Messages sent in more than one frame.</summary>
    public long FragmentedMessages;

    /// <summary>Fragments of those messages.</summary>
    public long Fragments;

    /// <summary>Fragment cuts inside a UTF-8 character.</summary>
    public long SplitsInsideCharacter;

    /// <summary>Pings sent between fragments.</summary>
    public long PingsSent;

    /// <summary>Pongs received (one Pong may answer several Pings in a row).</summary>
    public long PongsReceived;

    /// <summary>Pings whose Pong (or a later Ping's Pong) arrived, with a matching payload.</summary>
    public long PingsAnswered;

    /// <summary>Deflate transports: messages the client sent compressed (RSV1). Our sender compresses whole messages
    /// only (fragmented ones go as they are, which the extension allows per message); node's ws compresses every
    /// message, fragmented ones included (a hook on its deflate counts them).</summary>
    public long CompressedSent;

    /// <summary>Deflate transports: echoes the client received compressed, as node's ws counts them (a hook on its
    /// inflate); our client's session inflates before its listener sees a frame, so ours report 0 here.</summary>
    public long CompressedReceived;

    /// <summary>Messages of 0-125 B, 126-65,536 B and above.</summary>
    public long[] SizeClasses = new long[3];

    /// <summary>Frames sent with each of <see cref="SoakTraffic.Boundaries"/> as payload length.</summary>
    public long[] BoundarySent = new long[SoakTraffic.Boundaries.Length];

    /// <summary>Frames received (echoes) with each of <see cref="SoakTraffic.Boundaries"/> as payload length.</summary>
    public long[] BoundaryReceived = new long[SoakTraffic.Boundaries.Length];

    /// <summary>Verification failures: a wrong echo, a missing Pong, a violation, a close that was not clean.</summary>
    public long Failures;

    /// <summary>The first failures, described.</summary>
    public List<string> FailureSamples = [];

    /// <summary>Frames both ways.</summary>
    public long Frames => FramesSent + FramesReceived;

    /// <summary>Adds <paramref name="other"/>'s counts to these.</summary>
    public void Add(SoakCounts other)
    {
        ArgumentNullException.ThrowIfNull(other);
        Connections += other.Connections;
        FramesSent += other.FramesSent;
        FramesReceived += other.FramesReceived;
        Messages += other.Messages;
        MessagesVerified += other.MessagesVerified;
        TextMessages += other.TextMessages;
        BytesSent += other.BytesSent;
        BytesReceived += other.BytesReceived;
        FragmentedMessages += other.FragmentedMessages;
        Fragments += other.Fragments;
        SplitsInsideCharacter += other.SplitsInsideCharacter;
        PingsSent += other.PingsSent;
        PongsReceived += other.PongsReceived;
        PingsAnswered += other.PingsAnswered;
        CompressedSent += other.CompressedSent;
        CompressedReceived += other.CompressedReceived;
        Failures += other.Failures;
        AddAll(SizeClasses, other.SizeClasses);
        AddAll(BoundarySent, other.BoundarySent);
        AddAll(BoundaryReceived, other.BoundaryReceived);
        lock (FailureSamples)
        {
            FailureSamples.AddRange(other.FailureSamples.Take(Math.Max(0, 20 - FailureSamples.Count)));
        }
    }

    /// <summary>Records a failure (thread-safe).</summary>
    public void Fail(string description)
    {
        Interlocked.Increment(ref Failures);
        lock (FailureSamples)
        {
            if (FailureSamples.Count < 20)
            {
                FailureSamples.Add(description);
            }
        }
    }

    private static void AddAll(long[] into, long[]? from)
    {
        for (int i = 0; from is not null && i < Math.Min(into.Length, from.Length); i++)
        {
            into[i] += from[i];
        }
    }
}
