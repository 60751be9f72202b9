namespace WebSocketCodec.Fuzz.Model;

/// <summary>
/// A reference reading of a received byte stream, written from RFC 6455 §5 (with §7.4 for Close statuses) and RFC 7692
/// §6.1, to check the library against: deliberately simple and slow, one byte at a time, sharing no code with the
/// library. It returns the frames a conforming receiver accepts, and where it must (or may) fail with which statuses.
/// </summary>
/// <remarks>
/// Choices the RFCs leave open, made here on purpose:
/// <list type="bullet">
/// <item>A frame is judged alone, in order: the frames before the first one that breaks a rule are accepted. For that
/// frame every rule its bytes break counts (each status one of them justifies is allowed), except that a frame whose
/// header breaks a rule has its payload ignored: no decoder looks at a payload behind a header it refused.</item>
/// <item>When a rule is proven before the frame (for a header rule: the header) is all in, a decoder may fail at once
/// or wait for more bytes (<see cref="ModelEnd.NeedsMoreData"/> with <see cref="ModelVerdict.Broken"/> set).</item>
/// <item>Limits are the receiver's (RFC 6455 §10.4): the frame limit bounds every frame, control frames too; the
/// message limit bounds a data message (its frames' payloads on the wire, compressed or not); both are judged from a
/// header's length, before its payload.</item>
/// <item>A compressed message (RSV1 with permessage-deflate) is not checked for UTF-8 here: its payload is deflate
/// data, and the text it inflates to is the inflating layer's to check. RSV bits allowed without permessage-deflate
/// belong to an extension the model knows nothing of: they change nothing else.</item>
/// <item>A Close status is judged on the wire as <see cref="ModelRules.CloseCodeAllowed"/> says.</item>
/// </list>
/// </remarks>
public static class ReferenceModel
{
    /// <summary>Reads <paramref name="input"/> as the receiver configured by <paramref name="options"/>.</summary>
    public static ModelVerdict Read(ReadOnlySpan<byte> input, ModelOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var frames = new List<ModelFrame>();
        var broken = new List<ModelRule>();
        var message = new MessageState();
        int at = 0;
        int accepted = 0;
        while (true)
        {
            // Byte 0: FIN, RSV1-3, opcode.
            if (at == input.Length)
            {
                return End(ModelEnd.NeedsMoreData);
            }

            byte first = input[at++];
            bool fin = (first & 0x80) != 0;
            int rsv = (first >> 4) & 7;
            int opcode = first & 0x0F;
            bool control = (opcode & 0x08) != 0; // §5.5: control opcodes have their top bit set
            bool known = opcode is 0 or 1 or 2 or 8 or 9 or 10;
            if (!known)
            {
                broken.Add(ModelRule.ReservedOpcode);
            }

            int allowedRsv = options.AllowedRsv | (options.PerMessageDeflate ? 4 : 0);
            if ((rsv & ~allowedRsv) != 0)
            {
                broken.Add(ModelRule.ReservedBit);
            }

            if (options.PerMessageDeflate && (rsv & 4) != 0 && opcode is not (1 or 2))
            {
                broken.Add(ModelRule.CompressedBitOutsideMessageStart);
            }

            if (control && !fin)
            {
                broken.Add(ModelRule.ControlFrameNotFinal);
            }

            if (opcode == 0 && !message.Open)
            {
                broken.Add(ModelRule.ContinuationWithoutMessage);
            }

            if (opcode is 1 or 2 && message.Open)
            {
                broken.Add(ModelRule.NewMessageInsideMessage);
            }

            // Byte 1: MASK, payload length (7 bits).
            if (at == input.Length)
            {
                return End(ModelEnd.NeedsMoreData);
            }

            byte second = input[at++];
            bool masked = (second & 0x80) != 0;
            int length7 = second & 0x7F;
            if (masked != options.IsServer)
            {
                broken.Add(ModelRule.WrongMaskBit);
            }

            if (control && length7 > 125)
            {
                broken.Add(ModelRule.ControlFrameTooLong);
            }

            // Extended payload length: 16 bits for 126, 64 bits for 127, network byte order.
            int extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
            ulong length = extended == 0 ? (ulong)length7 : 0;
            for (int i = 0; i < extended; i++)
            {
                if (at == input.Length)
                {
                    return End(ModelEnd.NeedsMoreData);
                }

                length = (length << 8) | input[at++];
            }

            CheckLength(length, extended, opcode, known && !control, message, options, broken);
            if (known && opcode == 8 && length == 1)
            {
                broken.Add(ModelRule.CloseBodyOfOneByte);
            }

            // Masking key: 4 bytes when MASK is set.
            byte[] key = new byte[4];
            for (int i = 0; i < (masked ? 4 : 0); i++)
            {
                if (at == input.Length)
                {
                    return End(ModelEnd.NeedsMoreData);
                }

                key[i] = input[at++];
            }

            if (broken.Count > 0)
            {
                return End(ModelEnd.Rejected);
            }

            // The header is good: the frame joins (or is) a message, then its payload is read.
            if (opcode is 1 or 2)
            {
                message.Start(opcode == 1, options.PerMessageDeflate && (rsv & 4) != 0);
            }

            if (!control)
            {
                message.Length += (long)length;
                message.Frames++;
            }

            bool checkText = !control && message.Text && !message.Compressed && options.ValidateUtf8;
            var close = new CloseState();
            long available = input.Length - at;
            byte[]? payload = (ulong)available >= length ? new byte[length] : null; // kept only when all there
            for (ulong i = 0; i < length; i++)
            {
                if (at == input.Length)
                {
                    return End(ModelEnd.NeedsMoreData);
                }

                // §5.3: octet i of the data is octet i of the payload XOR octet (i MOD 4) of the key.
                byte value = (byte)(input[at++] ^ key[(int)(i % 4)]);
                if (payload is not null)
                {
                    payload[i] = value;
                }

                if (checkText && !message.Utf8.Feed(value))
                {
                    AddOnce(broken, ModelRule.TextNotUtf8);
                }

                if (opcode == 8)
                {
                    close.Feed(value, options.ValidateUtf8, broken);
                }
            }

            // The frame is all in: what can only be told at its end.
            if (checkText && fin && message.Utf8.InsideCharacter)
            {
                AddOnce(broken, ModelRule.TextNotUtf8); // the message ends inside a character
            }

            if (opcode == 8 && options.ValidateUtf8 && close.Reason.InsideCharacter)
            {
                AddOnce(broken, ModelRule.CloseReasonNotUtf8);
            }

            if (broken.Count > 0)
            {
                return End(ModelEnd.Rejected);
            }

            if (!control && fin)
            {
                message.Open = false;
            }

            frames.Add(new ModelFrame(opcode, fin, rsv, payload!));
            accepted = at;
        }

        ModelVerdict End(ModelEnd end) => new(frames, accepted, end, broken);
    }

    /// <summary>The rules a frame's length breaks: encoding (§5.2) and the receiver's limits.</summary>
    private static void CheckLength(
        ulong length, int extended, int opcode, bool data, MessageState message, ModelOptions options, List<ModelRule> broken)
    {
        if (extended == 8 && (length >> 63) != 0)
        {
            broken.Add(ModelRule.LengthTopBitSet);
        }

        if ((extended == 2 && length <= 125) || (extended == 8 && length <= 0xFFFF))
        {
            broken.Add(ModelRule.NonMinimalLength);
        }

        if (length > (ulong)options.MaxFramePayload)
        {
            broken.Add(ModelRule.FrameOverLimit);
        }

        if (!data)
        {
            return;
        }

        bool continuation = opcode == 0;
        if (!continuation || message.Open)
        {
            long sofar = continuation ? message.Length : 0;
            if (length > (ulong)options.MaxMessagePayload || (long)length > options.MaxMessagePayload - sofar)
            {
                broken.Add(ModelRule.MessageOverLimit);
            }
        }

        if (continuation && message.Open && options.MaxFragments > 0 && message.Frames >= options.MaxFragments)
        {
            broken.Add(ModelRule.TooManyFragments);
        }
    }

    private static void AddOnce(List<ModelRule> broken, ModelRule rule)
    {
        if (!broken.Contains(rule))
        {
            broken.Add(rule);
        }
    }

    /// <summary>The data message being received (§5.4): its type, size and frames so far, and its text's UTF-8 state,
    /// which runs on across its frames and across the control frames between them.</summary>
    private sealed class MessageState
    {
        public bool Open { get; set; }

        public bool Text { get; private set; }

        public bool Compressed { get; private set; }

        public long Length { get; set; }

        public int Frames { get; set; }

        public ModelUtf8 Utf8;

        public void Start(bool text, bool compressed)
        {
            Open = true;
            Text = text;
            Compressed = compressed;
            Length = 0;
            Frames = 0;
            Utf8 = default;
        }
    }

    /// <summary>A Close body read byte by byte (§5.5.1): a 2-byte status in network order, then a UTF-8 reason.</summary>
    private struct CloseState
    {
        private int _read;
        private int _code;

        public ModelUtf8 Reason;

        public void Feed(byte value, bool validateUtf8, List<ModelRule> broken)
        {
            if (_read < 2)
            {
                _code = (_code << 8) | value;
                if (++_read == 2 && !ModelRules.CloseCodeAllowed(_code))
                {
                    broken.Add(ModelRule.CloseStatusNotAllowed);
                }

                return;
            }

            _read++;
            if (validateUtf8 && !Reason.Feed(value))
            {
                AddOnce(broken, ModelRule.CloseReasonNotUtf8);
            }
        }
    }
}
