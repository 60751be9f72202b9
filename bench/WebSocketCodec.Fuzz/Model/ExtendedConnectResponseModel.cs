namespace WebSocketCodec.Fuzz;

/// <summary>
/// An independent model of the client's check of the answer to an RFC 8441 extended CONNECT, written for the fuzzer:
/// the final answer must be <c>:status</c> 200 and leave the stream open (RFC 8441 §4: the stream carries the
/// websocket after it), and RFC 6455 §4.1's items 5 and 6 apply as over HTTP/1.1 (RFC 8441 §5 keeps them; the key and
/// accept are gone): an extension only if offered and validly answered (<see cref="PerMessageDeflateModel"/>), a
/// subprotocol only one of those offered. Choices: only 200 opens the websocket (RFC 9110 §9.3.6 lets any 2xx open a
/// tunnel; RFC 8441's examples and servers answer 200, and the library documents 200); several
/// <c>sec-websocket-protocol</c> fields select no single subprotocol; a value is compared after trimming whitespace
/// of SP and HTAB only (optional whitespace, RFC 9110 §5.6.3; RFC 9113 §8.2.1 forbids it at either end of an HTTP/2 field value, so a server that sends it is read leniently).
/// </summary>
public static class ExtendedConnectResponseModel
{
    /// <summary>Why the answer does not open the websocket, or null when it does.</summary>
    public static string? Problem(
        string? status, bool endStream, IReadOnlyList<KeyValuePair<string, string>> fields, IReadOnlyCollection<string> offered,
        DeflateModelParameters? deflateOffer)
    {
        ArgumentNullException.ThrowIfNull(fields);
        ArgumentNullException.ThrowIfNull(offered);
        if (status != "200")
        {
            return "status";
        }

        if (endStream)
        {
            return "end of stream";
        }

        List<string> extensions = Values(fields, "sec-websocket-extensions");
        if (extensions.Count > 0
            && (deflateOffer is null || PerMessageDeflateModel.ResponseProblem(deflateOffer, string.Join(", ", extensions), out _) is not null))
        {
            return "extension";
        }

        List<string> protocols = Values(fields, "sec-websocket-protocol");
        if (protocols.Count > 1 || (protocols.Count == 1 && !offered.Contains(protocols[0].Trim(' ', '\t'))))
        {
            return "subprotocol";
        }

        return null;
    }

    private static List<string> Values(IReadOnlyList<KeyValuePair<string, string>> fields, string name) =>
        [.. fields.Where(f => string.Equals(f.Key, name, StringComparison.OrdinalIgnoreCase)).Select(f => f.Value)];
}
