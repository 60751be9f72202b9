namespace WebSocketCodec.Fuzz.Model;

/// <summary>A frame the model accepted, as RFC 6455 §5.2 names its parts.</summary>
/// <param name="Opcode">The opcode, 0-15 (only 0, 1, 2, 8, 9 and 10 are ever accepted).</param>
/// <param name="Fin">The FIN bit.</param>
/// <param name="Rsv">RSV1-3 as a number: RSV1 = 4, RSV2 = 2, RSV3 = 1.</param>
/// <param name="Payload">The application data, unmasked.</param>
public sealed record ModelFrame(int Opcode, bool Fin, int Rsv, byte[] Payload)
{
    /// <inheritdoc />
    public override string ToString() =>
        $"opcode {Opcode} fin={Fin} rsv={Rsv} {Payload.Length} B {Convert.ToHexString(Payload.AsSpan(0, Math.Min(16, Payload.Length)))}";
}
