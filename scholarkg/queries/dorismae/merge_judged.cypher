// One DORIS-MAE judgement per row, MERGEd on its own key (not on the aspect-paper pair):
// duplicate GPT annotations and the three human grades of a pair stay separate edges,
// because relevance sums every recorded score.
UNWIND $rows AS row
MATCH (a:Aspect {id: row.start})
MATCH (p:Paper {id: row.end})
MERGE (a)-[j:JUDGED {key: row.key}]->(p)
SET j.score = row.score, j.source = row.source, j.annotator = row.annotator
RETURN count(j) AS written
