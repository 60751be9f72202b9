using System.Buffers;

namespace WebSocketCodec.Fuzz;

/// <summary>One <see cref="HttpHeadParser.TryParse"/> outcome, comparable with another.</summary>
/// <param name="Status">The status.</param>
/// <param name="Head">The head, on Done.</param>
/// <param name="HeadLength">The head's length, on Done.</param>
/// <param name="Error">The error, on InvalidData.</param>
public sealed record HeadParse(OperationStatus Status, HttpHead? Head, int HeadLength, HttpHeadError Error)
{
    /// <summary>Parses <paramref name="source"/> with the given bounds.</summary>
    public static HeadParse Of(ReadOnlySpan<byte> source, int maxHeadLength, int maxFields)
    {
        OperationStatus status = HttpHeadParser.TryParse(source, out HttpHead? head, out int length, out HttpHeadError error, maxHeadLength, maxFields);
        return new HeadParse(status, head, status == OperationStatus.Done ? length : 0, error); // the length is documented on Done only
    }

    /// <summary>Whether both are the same outcome (the heads field by field).</summary>
    public bool SameAs(HeadParse other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (Status != other.Status || HeadLength != other.HeadLength || Error != other.Error || (Head is null) != (other.Head is null))
        {
            return false;
        }

        return Head is null || (StartLine(Head) == StartLine(other.Head!) && Head.IsResponse == other.Head!.IsResponse
            && Head.Fields.SequenceEqual(other.Head.Fields));
    }

    /// <summary>The start line's three words as received, whichever kind of line the head says it is (a model reads
    /// them itself rather than trusting <see cref="HttpHead.IsResponse"/>).</summary>
    public static (string First, string Second, string Third) StartLine(HttpHead head)
    {
        ArgumentNullException.ThrowIfNull(head);
        return head.IsResponse ? (head.Version, head.Status, head.ReasonPhrase) : (head.Method, head.Target, head.Version);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Status} {Error} length={HeadLength}{(Head is null ? string.Empty : $" '{StartLine(Head)}' {Head.Fields.Count} fields")}";
}
