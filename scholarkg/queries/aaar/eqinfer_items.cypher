// AAAR-1.0 EqInfer items in released order, with their gold letter.
MATCH (i:EqItem)
RETURN i.id AS id, i.index AS idx, i.context_before AS context_before,
       i.context_after AS context_after, i.options AS options, i.answer AS answer
ORDER BY idx, id
