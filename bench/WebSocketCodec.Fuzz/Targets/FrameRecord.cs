namespace WebSocketCodec.Fuzz;

/// <summary>One delivered frame: opcode, FIN, RSV and the payload after unmasking (a copy).</summary>
/// <param name="Opcode">The opcode.</param>
/// <param name="Fin">FIN.</param>
/// <param name="Rsv">The RSV bits.</param>
/// <param name="Payload">The unmasked payload.</param>
public sealed record FrameRecord(WebSocketOpcode Opcode, bool Fin, int Rsv, byte[] Payload)
{
    /// <summary>Whether both are the same frame, payload bytes included.</summary>
    public bool SameAs(FrameRecord other) =>
        Opcode == other.Opcode && Fin == other.Fin && Rsv == other.Rsv && Payload.AsSpan().SequenceEqual(other.Payload);

    /// <summary>The first difference between two runs' delivered frames, or null when they are the same.</summary>
    public static string? FirstDifference(IReadOnlyList<FrameRecord> one, IReadOnlyList<FrameRecord> other)
    {
        int common = Math.Min(one.Count, other.Count);
        for (int i = 0; i < common; i++)
        {
            if (!one[i].SameAs(other[i]))
            {
                return $"frame {i}: {one[i]} vs {other[i]}";
            }
        }

        return one.Count != other.Count ? $"{one.Count} frames vs {other.Count}" : null;
    }

    /// <inheritdoc />
    public override string ToString() =>
        $"{Opcode} fin={Fin} rsv={Rsv} {Payload.Length} B {Convert.ToHexString(Payload.AsSpan(0, Math.Min(16, Payload.Length)))}";
}
