namespace WebSocketCodec.Fuzz.Model;

/// <summary>
/// What the receiving end negotiated and configured, as the reference model reads it: the same knobs the library's
/// decoder takes, so library and model judge an input under the same rules. The RFCs set no size limits; the limits
/// here are the receiver's own (RFC 6455 §10.4), answered with 1009 (message too big) or, for the fragment count,
/// 1008 (policy violation).
/// </summary>
/// <param name="IsServer">Whether the receiver is the server: frames from a client must be masked, frames from a
/// server must not be (RFC 6455 §5.1, §5.3).</param>
/// <param name="MaxFramePayload">The largest payload of any one frame.</param>
/// <param name="MaxMessagePayload">The largest data message, all its frames' payloads together.</param>
/// <param name="MaxFragments">The most frames one data message may come in; 0 for no limit.</param>
/// <param name="AllowedRsv">RSV bits a negotiated extension defines (RSV1 = 4, RSV2 = 2, RSV3 = 1).</param>
/// <param name="PerMessageDeflate">Whether permessage-deflate (RFC 7692) was negotiated: RSV1 then marks a compressed
/// message, on the first frame of a Text or Binary message only.</param>
/// <param name="ValidateUtf8">Whether text messages and Close reasons are checked to be UTF-8.</param>
public sealed record ModelOptions(
    bool IsServer,
    long MaxFramePayload = 16 * 1024 * 1024,
    long MaxMessagePayload = 16 * 1024 * 1024,
    int MaxFragments = 4096,
    int AllowedRsv = 0,
    bool PerMessageDeflate = false,
    bool ValidateUtf8 = true);
