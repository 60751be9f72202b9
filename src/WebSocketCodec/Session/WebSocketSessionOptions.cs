using System.Buffers;

namespace WebSocketCodec;

/// <summary>Limits and timing of a <see cref="WebSocketSession"/> (frame and message sizes, keep-alive, idle, close and
/// slow-consumer timeouts, water marks): set them as <see cref="WebSocketAcceptOptions.Session"/> on a server or
/// <see cref="WebSocketClientOptions.Session"/> on a client when the defaults (<see cref="Default"/>) do not
/// fit.</summary>
public sealed record WebSocketSessionOptions
{
    /// <summary>The defaults (safe for a server on the internet): 16 MiB frames and messages, 4096 fragments per
    /// message, frames arriving at 240 B/s at least (after 5 s), UTF-8 validation, a keep-alive Ping after 30 s without input and the peer given up 15 s later without a
    /// Pong, no idle timeout, 5 s close timeout, outbound water marks 64/32 KiB, slow consumers closed after 30 s above
    /// the high mark.</summary>
    public static WebSocketSessionOptions Default { get; } = new();

    /// <summary>The largest frame payload accepted (1009 otherwise). A frame that does not arrive in one read is
    /// gathered in pooled segments of at most 64 KiB rented as its bytes arrive, and joined into one buffer of its
    /// length when complete, so this bounds that memory too.</summary>
    public int MaxFramePayloadLength { get; init; } = 16 * 1024 * 1024;

    /// <summary>The largest message accepted, all fragments together (1009 otherwise).</summary>
    public long MaxMessagePayloadLength { get; init; } = 16 * 1024 * 1024;

    /// <summary>The most frames one data message may come in (1008 beyond); zero for no limit. 4096 by default.</summary>
    public int MaxFragmentsPerMessage { get; init; } = 4096;

    /// <summary>The slowest a frame's payload may arrive, in bytes per second averaged from its header on, once the
    /// frame has been arriving for <see cref="MinFrameDataRateGracePeriod"/> (1008 below it); zero for no minimum. 240
    /// by default, as Kestrel's minimum request body rate: a peer that trickles a frame a few bytes at a time (which
    /// the keep-alive cannot catch: its bytes count as activity, and it cannot answer a Ping inside a frame) is given
    /// up, while any real link is hundreds of times faster.</summary>
    public int MinFrameDataRate { get; init; } = 240;

    /// <summary>How long a frame may arrive at any rate before <see cref="MinFrameDataRate"/> applies: 5 s.</summary>
    public static TimeSpan MinFrameDataRateGracePeriod { get; } = TimeSpan.FromSeconds(5);

    /// <summary>Whether text messages and close reasons must be UTF-8 (1007 otherwise).</summary>
    public bool ValidateUtf8 { get; init; } = true;

    /// <summary>How long the peer may send nothing before we send a keep-alive Ping; zero for never. 30 s by default
    /// (a peer that vanished without a FIN is found, and NATs and proxies see traffic).</summary>
    public TimeSpan KeepAliveInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>How long to wait for the Pong of a keep-alive Ping before giving the peer up with 1001 and closing the
    /// transport (a peer that stopped reading cannot answer); zero for not at all. 15 s by default.</summary>
    public TimeSpan KeepAliveTimeout { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>How long the peer may send nothing before we close with 1001; zero (the default) for no limit: a quiet
    /// peer that answers the keep-alive is alive, and an application that wants quiet websockets closed sets this.</summary>
    public TimeSpan IdleTimeout { get; init; }

    /// <summary>How long to wait for the peer's Close after ours (and, after a violation, for the transport's end while
    /// its input is discarded).</summary>
    public TimeSpan CloseTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>The most input read and discarded after a violation (our Close sent, our output ended) while waiting for
    /// the transport's end (FIN, END_STREAM), before the transport is closed anyway (counted as a close timeout); after
    /// our own Close the bound is one message
    /// (<see cref="MaxMessagePayloadLength"/>, which the peer may be finishing) plus this. 1 MiB by default.</summary>
    public long MaxDrainBytes { get; init; } = 1024 * 1024;

    /// <summary>Outbound bytes waiting for the transport (per websocket) at which the websocket stops being writable:
    /// <c>SendAsync</c> waits, a non-waiting send returns false, and the read loop stops reading until they drop to
    /// <see cref="OutboundLowWaterMark"/>. 64 KiB by default. Applied by the drivers (the Pipelines websocket, the
    /// SpanNetty handler), not by the session.</summary>
    public long OutboundHighWaterMark { get; init; } = 64 * 1024;

    /// <summary>Outbound bytes waiting at or below which a websocket that crossed the high water mark is writable again.
    /// 32 KiB by default.</summary>
    public long OutboundLowWaterMark { get; init; } = 32 * 1024;

    /// <summary>How long the peer of a websocket above its high water mark may take none of its output (it stopped
    /// reading) before it is closed with 1008 "slow consumer" and, when even that Close cannot be written within
    /// <see cref="CloseTimeout"/>, aborted. Judged by progress, not by level: a peer that keeps taking bytes, however
    /// far behind a burst left it, is not slow (the group's <see cref="BroadcastBudget"/> bounds what a burst may queue). Zero keeps
    /// waiting (the keep-alive and idle timeouts still apply). 30 s by default.</summary>
    public TimeSpan SlowConsumerTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Outbound bytes waiting for one websocket (its transport output and the group messages queued for it,
    /// together) beyond which a group with <see cref="SlowMemberPolicy.Close"/> closes it at once with 1008 "slow
    /// consumer", however fast its peer reads; zero (the default) for no such limit. Without it a member that keeps
    /// taking bytes is never closed for being behind: the queued group messages of all members together are bounded by
    /// the group's <see cref="BroadcastBudget"/> (a queued message is shared: it costs a member a reference, not a
    /// copy), and a member whose peer takes nothing is closed by <see cref="SlowConsumerTimeout"/>. Set it where one
    /// member must never fall further behind than this (a feed whose old messages are worthless); a value under
    /// <see cref="OutboundHighWaterMark"/> counts as that mark.</summary>
    public long OutboundHardLimit { get; init; }

    /// <summary>The pool for frames gathered across reads and for messages; <see cref="ArrayPool{T}.Shared"/> if null.</summary>
    public ArrayPool<byte>? Pool { get; init; }

    /// <summary>The time source for keep-alive, idle and close timeouts; <see cref="TimeProvider.System"/> if null.</summary>
    public TimeProvider? TimeProvider { get; init; }

    /// <summary>Refuses values the code cannot hold (negative sizes and times, a message larger than an array).</summary>
    internal void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfNegative(MaxFramePayloadLength, nameof(MaxFramePayloadLength));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(MaxFramePayloadLength, Array.MaxLength, nameof(MaxFramePayloadLength));
        ArgumentOutOfRangeException.ThrowIfNegative(MaxMessagePayloadLength, nameof(MaxMessagePayloadLength));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(MaxMessagePayloadLength, Array.MaxLength, nameof(MaxMessagePayloadLength));
        ArgumentOutOfRangeException.ThrowIfNegative(MaxDrainBytes, nameof(MaxDrainBytes));
        ArgumentOutOfRangeException.ThrowIfNegative(MaxFragmentsPerMessage, nameof(MaxFragmentsPerMessage));
        ArgumentOutOfRangeException.ThrowIfNegative(MinFrameDataRate, nameof(MinFrameDataRate));
        ArgumentOutOfRangeException.ThrowIfLessThan(KeepAliveInterval, TimeSpan.Zero, nameof(KeepAliveInterval));
        ArgumentOutOfRangeException.ThrowIfLessThan(KeepAliveTimeout, TimeSpan.Zero, nameof(KeepAliveTimeout));
        ArgumentOutOfRangeException.ThrowIfLessThan(IdleTimeout, TimeSpan.Zero, nameof(IdleTimeout));
        ArgumentOutOfRangeException.ThrowIfLessThan(CloseTimeout, TimeSpan.Zero, nameof(CloseTimeout));
        ArgumentOutOfRangeException.ThrowIfLessThan(SlowConsumerTimeout, TimeSpan.Zero, nameof(SlowConsumerTimeout));
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(OutboundHighWaterMark, nameof(OutboundHighWaterMark));
        ArgumentOutOfRangeException.ThrowIfNegative(OutboundLowWaterMark, nameof(OutboundLowWaterMark));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(OutboundLowWaterMark, OutboundHighWaterMark, nameof(OutboundLowWaterMark));
        ArgumentOutOfRangeException.ThrowIfNegative(OutboundHardLimit, nameof(OutboundHardLimit));
    }

    internal FrameDecoderOptions ToDecoderOptions() => new()
    {
        MaxFramePayloadLength = MaxFramePayloadLength,
        MaxMessagePayloadLength = MaxMessagePayloadLength,
        MaxFragmentsPerMessage = MaxFragmentsPerMessage,
        ValidateUtf8 = ValidateUtf8,
    };
}
