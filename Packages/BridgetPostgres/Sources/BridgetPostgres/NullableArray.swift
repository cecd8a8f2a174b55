import NIOCore
import PostgresNIO

/// A one-dimensional array parameter whose elements may be NULL, in PostgreSQL's binary array format: what a batch's
/// optional columns are sent as (postgres-nio's own `Array` encoding has no NULL elements).
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable,
    PostgresDynamicTypeEncodable
{
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self) // dimensions
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self) // has NULLs
        buffer.writeInteger(Element.psqlType.rawValue) // element type
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count)) // length
        buffer.writeInteger(1, as: Int32.self) // lower bound
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}
