namespace WebSocketCodec;

/// <summary>Limits and negotiated features for a <see cref="FrameDecoder"/>: set them when you run a decoder yourself.
/// A websocket of the driver takes its limits from <see cref="WebSocketSessionOptions"/> instead.</summary>
public sealed record FrameDecoderOptions
{
    /// <summary>The defaults: 16 MiB frames and messages, 4096 fragments per message, no extension, UTF-8 validation on.</summary>
    public static FrameDecoderOptions Default { get; } = new();

    /// <summary>The largest frame payload accepted; a longer one fails with 1009 from its header alone.</summary>
    public long MaxFramePayloadLength { get; init; } = 16 * 1024 * 1024;

    /// <summary>The largest message (all fragments together) accepted; a longer one fails with 1009 as soon as a
    /// header shows it will be exceeded.</summary>
    public long MaxMessagePayloadLength { get; init; } = 16 * 1024 * 1024;

    /// <summary>The most frames one data message may come in (its first frame and its continuations); one more fails
    /// with 1008 as soon as its header arrives. Zero for no limit. 4096 by default: a 16 MiB message streamed in 4 KiB
    /// fragments fits, while a peer cannot make the receiver handle millions of empty fragments for one message.</summary>
    public int MaxFragmentsPerMessage { get; init; } = 4096;

    /// <summary>The RSV bits a negotiated extension defines (RSV1 = 4, RSV2 = 2, RSV3 = 1); any other set bit fails
    /// with 1002. None by default.</summary>
    public int AllowedRsv { get; init; }

    /// <summary>Whether permessage-deflate (RFC 7692) was negotiated: RSV1 then marks a compressed message and is
    /// allowed on the first frame of a Text or Binary message only (on a control or continuation frame it still fails
    /// with 1002). A compressed text message is not checked for UTF-8 here: the layer that inflates it checks the
    /// inflated text. Message limits apply to the bytes on the wire; the inflated size is that layer's to bound.</summary>
    public bool PerMessageDeflate { get; init; }

    /// <summary>Whether text messages and close reasons are checked to be UTF-8 (1007 otherwise). On by default; turn
    /// off only when a layer above validates.</summary>
    public bool ValidateUtf8 { get; init; } = true;
}
